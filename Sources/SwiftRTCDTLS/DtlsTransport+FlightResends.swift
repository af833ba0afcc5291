import Dispatch

/// Flights of the handshake resent by this end, on top of GnuTLS's own retransmissions.
///
/// **While connecting.** GnuTLS retransmits a flight that got no answer after 200 ms and
/// doubles the wait after each loss (400, 800, 1600, 3200, 6400 ms...), and offers no way to
/// cap it. Under 20% loss a flight of two or three datagrams and its answer are lost together
/// often enough for the handshake to take more than 10 s. So this end also resends its last
/// flight, the same datagrams, once ``handshakeResendInterval`` has passed since it last went
/// out: the wait between two copies never exceeds 1 s. A copy that repairs a lost flight is
/// processed; one whose original arrived is dropped as a replay (RFC 6347 §4.1.2.6), as a
/// duplicate from the network would be. When only the peer's answer was lost, the peer's
/// own resends (or its retransmissions) bring it.
///
/// **Once connected.** The end that sends the last flight (the server's ChangeCipherSpec and
/// Finished, RFC 6347 §4.2.4) is connected once it has sent that flight. If the flight is
/// lost, only the peer's retransmission timer recovers it, with the same doubling. So this end
/// resends the same datagrams every ``lastFlightResendInterval`` until
/// ``confirmPeerHasKeys()`` says an authenticated packet came from the peer, at most
/// ``maximumLastFlightResends`` times. Nothing is resent when the first authenticated SRTP
/// arrives within the interval, as it does on any working path.
extension DtlsTransport {
    /// The longest wait, while connecting, before the last flight sent goes out again.
    static let handshakeResendInterval = DispatchTimeInterval.seconds(1)
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
            cancelTimer()
            if lastFlightResendCount > 0 {
                logger.info(
                    "DTLS \(configuration.role.rawValue): last flight resent \(lastFlightResendCount) times before the peer had the keys"
                )
            }
        }
    }

    /// How many times the last flight was resent.
    public var lastFlightResends: Int { onQueue { lastFlightResendCount } }

    /// How many times a flight was resent while connecting (besides GnuTLS's retransmissions).
    public var handshakeFlightResends: Int { onQueue { handshakeFlightResendCount } }

    /// After a handshake call: keeps the flight it sent, if it sent one.
    func noteHandshakeFlight(_ sent: [[UInt8]]) {
        guard !sent.isEmpty else { return }
        handshakeFlight = sent
        handshakeFlightSentAt = .now()
    }

    /// While connecting: resends the last flight sent if it went out
    /// ``handshakeResendInterval`` ago or more; returns when the next resend is due (nil while
    /// this end has sent nothing).
    func resendHandshakeFlightIfDue() -> DispatchTime? {
        guard !handshakeFlight.isEmpty else { return nil }
        if DispatchTime.now() >= handshakeFlightSentAt + Self.handshakeResendInterval {
            for datagram in handshakeFlight {
                _ = datagram.withUnsafeBytes { sender.send($0) }
            }
            handshakeFlightSentAt = .now()
            handshakeFlightResendCount += 1
        }
        return handshakeFlightSentAt + Self.handshakeResendInterval
    }

    /// Keeps what the completing handshake call sent (`flight`), if anything, and schedules
    /// its resend.
    func keepLastFlight(_ flight: [[UInt8]]) {
        handshakeFlight = []
        if handshakeFlightResendCount > 0 {
            logger.info(
                "DTLS \(configuration.role.rawValue): resent its flights \(handshakeFlightResendCount) times while connecting"
            )
        }
        lastFlight = flight
        guard !lastFlight.isEmpty else { return }
        setTimer(at: .now() + Self.lastFlightResendInterval)
    }

    /// On the timer after the handshake: resends the last flight unless the peer confirmed it.
    func resendLastFlight() {
        guard !lastFlight.isEmpty, lastFlightResendCount < Self.maximumLastFlightResends else {
            if !lastFlight.isEmpty {
                logger.info(
                    "DTLS \(configuration.role.rawValue): no packet from the peer after \(lastFlightResendCount) resends of the last flight; left to its retransmissions"
                )
            }
            lastFlight.removeAll()
            return
        }
        lastFlightResendCount += 1
        setTimer(at: .now() + Self.lastFlightResendInterval)
        for datagram in lastFlight {
            _ = datagram.withUnsafeBytes { sender.send($0) }
        }
    }
}
