import Dispatch

/// The last flight of the handshake, resent until the peer shows it has the keys.
///
/// The end that sends the last flight (the server's ChangeCipherSpec and Finished, RFC 6347
/// §4.2.4) is connected once it has sent that flight. If the flight is lost, only the peer's
/// retransmission timer recovers it. GnuTLS doubles that timer after each loss (200, 400, 800,
/// 1600, 3200 ms). Under heavy loss, the peer stays without keys for seconds while this end
/// already sends media.
///
/// So this end resends the same datagrams every ``lastFlightResendInterval`` until
/// ``confirmPeerHasKeys()`` says an authenticated packet came from the peer, at most
/// ``maximumLastFlightResends`` times. The copies carry the same record sequence numbers: a
/// peer that already has them drops them as replays (RFC 6347 §4.1.2.6), as it drops any
/// duplicate from the network. Nothing is resent when the first authenticated SRTP arrives
/// within the interval, as it does on any working path.
extension DtlsTransport {
    /// Time between two resends of the last flight.
    static let lastFlightResendInterval = DispatchTimeInterval.milliseconds(500)
    /// Resends at most this many times (5 s), then leaves recovery to the peer's timer.
    public static let maximumLastFlightResends = 10

    /// Tells the transport that the peer holds the SRTP keys: an SRTP or SRTCP packet from it
    /// passed authentication, so the last flight arrived. Stops resending it. Safe from any
    /// thread; call it once.
    public func confirmPeerHasKeys() {
        queue.async { [self] in
            guard !lastFlight.isEmpty else { return }
            lastFlight.removeAll()
            timer?.schedule(deadline: .distantFuture)
            if lastFlightResendCount > 0 {
                logger.info("DTLS \(configuration.role.rawValue): last flight resent \(lastFlightResendCount) times before the peer had the keys")
            }
        }
    }

    /// How many times the last flight was resent.
    public var lastFlightResends: Int { onQueue { lastFlightResendCount } }

    /// Keeps what the completing handshake call sent, if anything, and schedules its resend.
    func keepLastFlight() {
        lastFlight = flightCapture ?? []
        guard !lastFlight.isEmpty else { return }
        timer?.schedule(deadline: .now() + Self.lastFlightResendInterval, repeating: Self.lastFlightResendInterval)
    }

    /// On the timer after the handshake: resends the last flight unless the peer confirmed it.
    func resendLastFlight() {
        guard !lastFlight.isEmpty, lastFlightResendCount < Self.maximumLastFlightResends else {
            if !lastFlight.isEmpty {
                logger.info("DTLS \(configuration.role.rawValue): no packet from the peer after \(lastFlightResendCount) resends of the last flight; left to its retransmissions")
            }
            lastFlight.removeAll()
            timer?.schedule(deadline: .distantFuture)
            return
        }
        lastFlightResendCount += 1
        for datagram in lastFlight {
            _ = datagram.withUnsafeBytes { sender.send($0) }
        }
    }
}
