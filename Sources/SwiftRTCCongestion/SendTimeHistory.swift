import SwiftRTCRTP

/// The sender's side of transport-wide congestion control: when each transport-wide sequence
/// number went out and how big the packet was, in a ring preallocated once; transport-cc
/// feedback (``TransportLayerCC``) is matched against it into ``PacketResult``s.
///
/// Recording a sent packet never allocates. Feedback about packets older than the ring
/// (``capacity``) is ignored.
public struct SendTimeHistory: Sendable {
    /// Packets remembered.
    public static let capacity = 8192

    private struct Entry: Sendable {
        var sequence: Int64 = -1
        var sendTime: Int64 = 0
        var size: Int32 = 0
        var reported = false
    }

    private var entries: [Entry]
    private var sendUnwrapper = SequenceUnwrapper()
    private var feedbackUnwrapper = SequenceUnwrapper()
    /// The previous feedback's reference time (24-bit, 64 ms units) and its unwrapped value.
    private var lastReference: (raw: Int32, unwrapped: Int64)?
    private var lastFeedbackCount: UInt8?
    /// Feedback packets that went missing (by the feedback packet count).
    public private(set) var lostFeedbackPackets: Int64 = 0

    /// Creates an empty history (the ring is allocated here, once).
    public init() {
        entries = [Entry](repeating: Entry(), count: Self.capacity)
    }

    /// Records that the packet with transport-wide `sequenceNumber` and `size` bytes was sent
    /// at `sendTime` (microseconds, monotonic). No allocation.
    public mutating func record(sequenceNumber: UInt16, size: Int, sendTime: Int64) {
        let sequence = sendUnwrapper.unwrap(sequenceNumber)
        entries[Int(sequence & Int64(Self.capacity - 1))] = Entry(
            sequence: sequence,
            sendTime: sendTime,
            size: Int32(clamping: size)
        )
    }

    /// The farthest the reference time may move between two feedback packets (64 ms units:
    /// ±64 s) and still be followed; a farther jump (a peer's made-up value, or a restart)
    /// starts the receiver's time axis again at it.
    public static let maximumReferenceJump: Int64 = 1000
    /// Reference-time jumps beyond ``maximumReferenceJump`` (each restarted the time axis).
    public private(set) var referenceJumps: Int64 = 0

    /// The results for the packets `feedback` reports, in sequence order: each known packet's
    /// send time and size with its arrival time (nil: lost). A packet reported received once
    /// is not reported again (feedback may repeat it). At most ``capacity`` statuses are read:
    /// older ones cannot match the ring.
    public mutating func results(for feedback: TransportLayerCC) -> [PacketResult] {
        if let last = lastFeedbackCount {
            let gap = Int(feedback.feedbackPacketCount &- last)
            if gap > 1 && gap < 128 { lostFeedbackPackets += Int64(gap - 1) }
        }
        lastFeedbackCount = feedback.feedbackPacketCount
        // Reference time: 24-bit signed, in 64 ms units; unwrapped across feedback packets.
        let reference: Int64
        if let last = lastReference {
            var delta = Int64(feedback.referenceTime) - Int64(last.raw)
            if delta > 0x7F_FFFF { delta -= 0x100_0000 }
            if delta < -0x80_0000 { delta += 0x100_0000 }
            if abs(delta) > Self.maximumReferenceJump {
                referenceJumps += 1
                reference = Int64(feedback.referenceTime)
            } else {
                reference = last.unwrapped + delta
            }
        } else {
            reference = Int64(feedback.referenceTime)
        }
        lastReference = (feedback.referenceTime, reference)

        // No overflow: the reference moves at most 64 s per feedback (10^11 feedback packets
        // to reach Int64's range in µs), and one feedback's deltas add up to at most 8192 x 8.2 s.
        let statuses = feedback.statuses.prefix(Self.capacity)
        var results: [PacketResult] = []
        results.reserveCapacity(statuses.count)
        let base = feedbackUnwrapper.unwrap(feedback.baseSequenceNumber)
        var arrival = reference * 64_000
        for (offset, status) in statuses.enumerated() {
            let sequence = base + Int64(offset)
            var arrived: Int64?
            if let delta = status.delta {
                arrival += Int64(delta) * 250
                arrived = arrival
            }
            let slot = Int(sequence & Int64(Self.capacity - 1))
            guard entries[slot].sequence == sequence, !entries[slot].reported else { continue }
            if arrived != nil { entries[slot].reported = true }
            results.append(
                PacketResult(
                    sequenceNumber: sequence,
                    sendTime: entries[slot].sendTime,
                    size: Int(entries[slot].size),
                    arrivalTime: arrived
                )
            )
        }
        _ = feedbackUnwrapper.unwrap(feedback.baseSequenceNumber &+ UInt16(truncatingIfNeeded: feedback.statuses.count))
        return results
    }
}
