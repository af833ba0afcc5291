import SwiftRTCRTP

/// The sender's side of transport-wide congestion control: when each transport-wide sequence
/// number went out and how big the packet was, in a ring; transport-cc
/// feedback (``TransportLayerCC``) is matched against it into ``PacketResult``s.
///
/// The ring starts at ``initialCapacity`` packets and doubles, up to ``capacity``, when a
/// packet would take the place of one sent less than ``growthHorizon`` ago that no feedback
/// has reached yet: it grows to what the packet rate and the feedback delay need (an audio
/// call's stays at its first size), and recording a packet allocates only then (at most 5
/// times). Feedback about packets older than the ring is ignored.
public struct SendTimeHistory: Sendable {
    /// Packets remembered at most.
    public static let capacity = 8192
    /// Packets remembered before more are needed.
    public static let initialCapacity = 256
    /// How long (µs) a packet is kept for feedback to reach it, ring capacity permitting.
    public static let growthHorizon: Int64 = 1_000_000

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
    /// The first sequence number past what feedback has covered (nil before any feedback).
    private var coveredUpTo: Int64?
    /// Feedback packets that went missing (by the feedback packet count).
    public private(set) var lostFeedbackPackets: Int64 = 0

    /// Creates an empty history.
    public init() {
        entries = [Entry](repeating: Entry(), count: Self.initialCapacity)
    }

    /// Packets the ring holds now.
    var ringSize: Int { entries.count }

    private func slot(_ sequence: Int64) -> Int { Int(sequence & Int64(entries.count - 1)) }

    /// Records that the packet with transport-wide `sequenceNumber` and `size` bytes was sent
    /// at `sendTime` (microseconds, monotonic). No allocation unless the ring grows.
    public mutating func record(sequenceNumber: UInt16, size: Int, sendTime: Int64) {
        let sequence = sendUnwrapper.unwrap(sequenceNumber)
        let replaced = entries[slot(sequence)]
        if entries.count < Self.capacity, replaced.sequence >= (coveredUpTo ?? 0),
            sendTime - replaced.sendTime < Self.growthHorizon
        {
            grow()
        }
        entries[slot(sequence)] = Entry(
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
            let index = slot(sequence)
            guard entries[index].sequence == sequence, !entries[index].reported else { continue }
            if arrived != nil { entries[index].reported = true }
            results.append(
                PacketResult(
                    sequenceNumber: sequence,
                    sendTime: entries[index].sendTime,
                    size: Int(entries[index].size),
                    arrivalTime: arrived
                )
            )
        }
        _ = feedbackUnwrapper.unwrap(feedback.baseSequenceNumber &+ UInt16(truncatingIfNeeded: feedback.statuses.count))
        coveredUpTo = max(coveredUpTo ?? 0, base + Int64(statuses.count))
        return results
    }

    /// Doubles the ring, each packet moved to its place in the larger one.
    private mutating func grow() {
        let old = entries
        entries = [Entry](repeating: Entry(), count: old.count * 2)
        for entry in old where entry.sequence >= 0 { entries[slot(entry.sequence)] = entry }
    }
}
