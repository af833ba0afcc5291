/// Reception statistics of one source as RFC 3550 §A.1, A.3 and A.8 define them: extended
/// highest sequence number, cumulative and fractional loss, interarrival jitter. Produces the
/// report block of an RR or SR.
public struct ReceiveStatistics: Sendable {
    /// Sequence numbers this far apart start over (RFC 3550 §A.1 MAX_DROPOUT / MAX_MISORDER).
    static let maxDropout = 3000, maxMisorder = 100

    /// The synchronization source (SSRC).
    public let ssrc: UInt32
    /// The RTP clock rate, to convert arrival times to timestamp units.
    public let clockRate: UInt32
    var baseSequence: Int64 = 0
    var unwrapper = SequenceUnwrapper()
    var maxSequence: Int64 = -1
    /// Packets received (including duplicates, as RFC 3550 counts them).
    public private(set) var received: Int64 = 0
    var expectedPrior: Int64 = 0
    var receivedPrior: Int64 = 0
    var transit: Int64?
    /// Interarrival jitter in timestamp units, as the 1/16 running estimate.
    var jitterQ4: Int64 = 0

    /// Creates the value from its fields.
    public init(ssrc: UInt32, clockRate: UInt32) {
        self.ssrc = ssrc
        self.clockRate = clockRate
    }

    /// Counts a packet with `sequenceNumber` and `timestamp` that arrived at `arrivalSeconds`
    /// (any monotonic clock). A `retransmission` (repaired by RTX or NACK) counts as received
    /// but not in the jitter: it is late on purpose.
    public mutating func record(sequenceNumber: UInt16, timestamp: UInt32, arrivalSeconds: Double, retransmission: Bool = false) {
        let extended = unwrapper.unwrap(sequenceNumber)
        if received == 0 {
            baseSequence = extended
            maxSequence = extended
        } else if extended > maxSequence + Int64(Self.maxDropout) || extended < maxSequence - Int64(Self.maxMisorder) {
            // A jump: the source restarted its sequence. Start counting over (A.1).
            baseSequence = extended
            maxSequence = extended
            received = 0
            expectedPrior = 0
            receivedPrior = 0
        } else if extended > maxSequence {
            maxSequence = extended
        }
        received += 1
        guard !retransmission else { return }
        // A.8: J += (|D| - J) / 16 with D the difference of relative transit times.
        let arrival = Int64(arrivalSeconds * Double(clockRate))
        let transitNow = arrival - Int64(timestamp)
        if let transit {
            var d = transitNow - transit
            // Timestamps wrap: take the shorter way round.
            d = Int64(Int32(truncatingIfNeeded: d))
            jitterQ4 += abs(d) - (jitterQ4 + 8) / 16
        }
        transit = transitNow
    }

    /// The extended highest sequence number received.
    public var extendedHighestSequence: UInt32 { UInt32(truncatingIfNeeded: max(maxSequence, 0)) }
    /// Packets expected from the first to the highest sequence number.
    public var expected: Int64 { received == 0 ? 0 : maxSequence - baseSequence + 1 }
    /// Cumulative packets lost (expected - received; negative with duplicates), clamped to 24 bits.
    public var cumulativeLost: Int32 { Int32(clamping: min(max(expected - received, -0x80_0000), 0x7F_FFFF)) }
    /// Interarrival jitter in timestamp units.
    public var jitter: UInt32 { UInt32(clamping: jitterQ4 / 16) }
    /// Interarrival jitter in seconds.
    public var jitterSeconds: Double { Double(jitterQ4) / 16 / Double(clockRate) }

    /// The report block for this source (A.3); starts a new fraction-lost interval.
    /// `lastSenderReport` is the middle 32 bits of the last SR's NTP time, and
    /// `delaySinceLastSenderReport` the time since it arrived in 1/65536 s.
    public mutating func makeReport(lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0) -> ReceptionReport {
        let expectedInterval = expected - expectedPrior
        let receivedInterval = received - receivedPrior
        expectedPrior = expected
        receivedPrior = received
        let lostInterval = expectedInterval - receivedInterval
        let fraction: UInt8 = expectedInterval == 0 || lostInterval <= 0 ? 0 : UInt8(min(255, (lostInterval << 8) / expectedInterval))
        return ReceptionReport(ssrc: ssrc, fractionLost: fraction, cumulativeLost: cumulativeLost,
                               extendedHighestSequence: extendedHighestSequence, jitter: jitter,
                               lastSenderReport: lastSenderReport, delaySinceLastSenderReport: delaySinceLastSenderReport)
    }
}
