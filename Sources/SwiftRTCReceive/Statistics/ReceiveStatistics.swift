import SwiftRTCCore
import SwiftRTCRTP

/// Reception statistics of one source as RFC 3550 §A.1, A.3 and A.8 define them: extended
/// highest sequence number, cumulative and fractional loss, interarrival jitter. Produces the
/// report block of an RR or SR.
///
/// Any sequence numbers and timestamps are taken without a trap: sequence numbers are
/// extended relative to the highest one (A.1's `udelta`); a jump beyond ``maxDropout`` ahead
/// or ``maxMisorder`` behind is believed, and the counts start over (``jumpsRestarted``),
/// only when the next packet follows it (A.1's `bad_seq`); a single wild packet is not
/// counted. A repaired packet (RTX) up to ``RemoteInputLimits/maxNackAge`` behind counts
/// as received. A change of transit time above ``RemoteInputLimits/maxTransitJump`` is a
/// timestamp jump, not jitter (``timestampJumps``), as libwebrtc skips jumps above 5 s.
public struct ReceiveStatistics: Sendable {
    /// Sequence numbers this far apart start over (RFC 3550 §A.1 MAX_DROPOUT / MAX_MISORDER).
    static let maxDropout = 3000, maxMisorder = 100

    /// The synchronization source (SSRC).
    public let ssrc: UInt32
    /// The RTP clock rate, to convert arrival times to timestamp units.
    public let clockRate: UInt32
    var baseSequence: Int64 = 0
    /// The extended highest sequence number (cycles in the bits above 16); -1 before the first.
    var maxSequence: Int64 = -1
    /// The sequence number that confirms a jump (A.1 `bad_seq`), if one is pending.
    var badSequence: UInt16?
    /// Packets received (including duplicates, as RFC 3550 counts them).
    public private(set) var received: Int64 = 0
    var expectedPrior: Int64 = 0
    var receivedPrior: Int64 = 0
    var transit: Int64?
    /// Interarrival jitter in timestamp units, as the 1/16 running estimate.
    var jitterQ4: Int64 = 0
    /// Sequence jumps that started the counts over (confirmed by the packet after them).
    public private(set) var jumpsRestarted = 0
    /// Timestamp jumps left out of the jitter.
    public private(set) var timestampJumps = 0

    /// Creates the value from its fields.
    public init(ssrc: UInt32, clockRate: UInt32) {
        self.ssrc = ssrc
        self.clockRate = clockRate
    }

    /// Counts a packet with `sequenceNumber` and `timestamp` that arrived at `arrivalSeconds`
    /// (any monotonic clock). A `retransmission` (repaired by RTX or NACK) counts as received
    /// but not in the jitter: it is late on purpose.
    public mutating func record(
        sequenceNumber: UInt16,
        timestamp: UInt32,
        arrivalSeconds: Double,
        retransmission: Bool = false
    ) {
        if maxSequence < 0 {
            start(at: sequenceNumber)
        } else {
            let delta = Int64(
                SequenceNumber.distance(from: UInt16(truncatingIfNeeded: maxSequence), to: sequenceNumber)
            )
            if delta > 0, delta < Int64(Self.maxDropout) {
                maxSequence += delta
                badSequence = nil
            } else if delta <= 0,
                delta >= -Int64(Self.maxMisorder) || (retransmission && delta >= -Int64(RemoteInputLimits.maxNackAge))
            {
                // A duplicate or a reordered (or repaired) packet: counted, nothing moves.
            } else if badSequence == sequenceNumber {
                // Two sequential packets after a jump: the source restarted its numbering.
                jumpsRestarted += 1
                start(at: sequenceNumber)
            } else {
                badSequence = sequenceNumber &+ 1
                return
            }
        }
        received += 1
        guard !retransmission else { return }
        // A.8: J += (|D| - J) / 16 with D the difference of relative transit times, in
        // timestamp units; the arrival time wraps like the timestamps do.
        let transitNow = Int64(Int32(truncatingIfNeeded: ticks(arrivalSeconds) &- Int64(timestamp)))
        if let transit {
            let d = abs(Int64(Int32(truncatingIfNeeded: transitNow &- transit)))
            if Double(d) > RemoteInputLimits.maxTransitJump * Double(clockRate) {
                timestampJumps += 1
            } else {
                jitterQ4 += d - (jitterQ4 + 8) / 16
            }
        }
        transit = transitNow
    }

    /// Starts the counts at `sequence` (A.1 `init_seq`: no cycles yet).
    mutating func start(at sequence: UInt16) {
        baseSequence = Int64(sequence)
        maxSequence = Int64(sequence)
        badSequence = nil
        received = 0
        expectedPrior = 0
        receivedPrior = 0
        transit = nil
    }

    /// `seconds` in clock ticks, modulo 2^32 like RTP timestamps (0 for a time that is not finite).
    func ticks(_ seconds: Double) -> Int64 {
        let value = (seconds * Double(clockRate)).truncatingRemainder(dividingBy: 4_294_967_296)
        return value.isFinite ? Int64(value) : 0
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
    public var jitterSeconds: Double { clockRate == 0 ? 0 : Double(jitterQ4) / 16 / Double(clockRate) }

    /// The report block for this source (A.3); starts a new fraction-lost interval.
    /// `lastSenderReport` is the middle 32 bits of the last SR's NTP time, and
    /// `delaySinceLastSenderReport` the time since it arrived in 1/65536 s.
    public mutating func makeReport(
        lastSenderReport: UInt32 = 0,
        delaySinceLastSenderReport: UInt32 = 0
    ) -> ReceptionReport {
        defer {
            expectedPrior = expected
            receivedPrior = received
        }
        return currentReport(lastSenderReport: lastSenderReport, delaySinceLastSenderReport: delaySinceLastSenderReport)
    }

    /// The report block for this source as ``makeReport(lastSenderReport:delaySinceLastSenderReport:)``
    /// writes it, without starting a new interval: for a compound feedback packet between two
    /// regular reports (RFC 4585 §3.1).
    public func currentReport(
        lastSenderReport: UInt32 = 0,
        delaySinceLastSenderReport: UInt32 = 0
    ) -> ReceptionReport {
        let expectedInterval = expected - expectedPrior
        let receivedInterval = received - receivedPrior
        let lostInterval = expectedInterval - receivedInterval
        let fraction: UInt8 =
            expectedInterval <= 0 || lostInterval <= 0
            ? 0
            : UInt8(
                min(
                    255,
                    lostInterval.multipliedReportingOverflow(by: 256).overflow
                        ? 255 : lostInterval * 256 / expectedInterval
                )
            )
        return ReceptionReport(
            ssrc: ssrc,
            fractionLost: fraction,
            cumulativeLost: cumulativeLost,
            extendedHighestSequence: extendedHighestSequence,
            jitter: jitter,
            lastSenderReport: lastSenderReport,
            delaySinceLastSenderReport: delaySinceLastSenderReport
        )
    }
}
