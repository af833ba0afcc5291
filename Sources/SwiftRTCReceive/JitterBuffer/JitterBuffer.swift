import SwiftRTCCore
import SwiftRTCRTP

/// Puts received RTP packets of one stream back in sequence order: drops duplicates and
/// packets too late to use, waits a bounded time for a missing packet, then skips it and
/// reports the gap, so it never stalls. The first packets of a stream are held for that wait
/// too, in case earlier ones arrive after them. Packets are copied into slots that grow to the
/// stream's packet size within its first packets, then are not allocated again: no allocation
/// per packet. Used from one thread (the transport's).
///
/// With a ``maximumDelay`` above 0 it also holds packets for an adaptive playout delay, as
/// NetEq and pion's jitter buffer do: each packet is due at its RTP time mapped onto the
/// arrival clock of the fastest packet seen (the minimum transit) plus ``targetDelay``, which
/// follows the measured interarrival jitter (``jitterFactor`` times the RFC 3550 A.8
/// estimate, within ``minimumDelay``...``maximumDelay``). Call ``pop(now:)`` on a timer too:
/// packets are released when due, not only when another one arrives. A missing packet is
/// given up once the packet after it is due and ``maximumWait`` has passed since it arrived.
///
/// What a peer sends never costs work that grows with the size of a jump: a packet that
/// jumps past everything held starts the buffer over at it (``jumpsRestarted``), with work
/// bounded by the capacity; a timestamp jump (a change of transit time above
/// ``RemoteInputLimits/maxTransitJump``) stays out of the jitter estimate
/// (``timestampJumps``), and no packet is held longer than ``maximumDelay`` after it came.
///
/// ```swift
/// buffer.insert(datagram, arrival: now)
/// while let event = buffer.pop(now: now) { ... }  // .packet(view) or .gap(first:, count:)
/// ```
public final class JitterBuffer {
    /// What ``insert(_:arrival:)`` did with a packet.
    public enum InsertResult: Sendable, Hashable {
        case accepted
        /// Already in the buffer.
        case duplicate
        /// Older than the packets already delivered (late, or a duplicate of one delivered).
        case late
        /// Not an RTP packet, or larger than a slot.
        case rejected
    }

    /// What ``pop(now:)`` yields, in sequence order.
    public enum Event {
        /// The next packet: a view valid until the next ``insert(_:arrival:)``.
        case packet(RTPPacket)
        /// `count` packets from sequence number `first` on never came (or came too late).
        case gap(first: UInt16, count: Int)
    }

    /// How long a missing packet is waited for once later packets are there, in seconds.
    public let maximumWait: Double
    /// The least playout delay, in seconds.
    public let minimumDelay: Double
    /// The most playout delay, in seconds; 0 releases packets as soon as they are in order.
    public let maximumDelay: Double
    /// The target delay is this many times the interarrival jitter.
    public static let jitterFactor = 3.0
    let slots: PacketSlots
    /// Each slot's extended RTP timestamp (indexed like the slots).
    var slotTimestamps: [Int64]
    var timestampUnwrapper = TimestampUnwrapper()
    /// The smallest transit time (arrival minus RTP time, seconds) seen: the playout clock's base.
    var minimumTransit: Double?
    var unwrapper = SequenceUnwrapper()
    /// The extended sequence number to deliver next.
    var next: Int64?
    var highest: Int64 = -1
    var stored = 0
    var transit: Double?
    var jitterSeconds = 0.0
    let clockRate: Double

    /// Packets that came twice.
    public private(set) var duplicates = 0
    /// Packets that came after their place was skipped or delivered.
    public private(set) var latePackets = 0
    /// Packets skipped as lost.
    public private(set) var lostPackets = 0
    /// Packets rejected as malformed or oversized.
    public private(set) var rejectedPackets = 0
    /// Sequence jumps past everything held that started the buffer over.
    public private(set) var jumpsRestarted = 0
    /// Timestamp jumps kept out of the jitter estimate.
    public private(set) var timestampJumps = 0
    /// Slots looked at, in all (the work bound, for tests).
    var visited = 0

    /// - Parameters:
    ///   - capacity: packets held at most (older ones are skipped when newer ones need room).
    ///   - slotSize: the largest packet accepted.
    ///   - maximumWait: seconds to wait for a missing packet.
    ///   - clockRate: the stream's RTP clock rate (for the delay estimate).
    ///   - minimumDelay: the least playout delay, in seconds.
    ///   - maximumDelay: the most playout delay, in seconds (0: no playout delay).
    public init(
        capacity: Int = 512,
        slotSize: Int = 1500,
        maximumWait: Double = 0.1,
        clockRate: UInt32 = 90_000,
        minimumDelay: Double = 0,
        maximumDelay: Double = 0
    ) {
        slots = PacketSlots(capacity: capacity, slotSize: slotSize)
        slotTimestamps = Array(repeating: 0, count: slots.capacity)
        self.maximumWait = maximumWait
        self.clockRate = Double(clockRate)
        self.maximumDelay = max(0, maximumDelay)
        self.minimumDelay = min(max(0, minimumDelay), self.maximumDelay)
    }

    /// Packets waiting in the buffer.
    public var count: Int { stored }

    /// The playout delay aimed for, in seconds: ``jitterFactor`` times the interarrival jitter
    /// (RFC 3550 A.8 estimate), within ``minimumDelay``...``maximumDelay``.
    public var targetDelay: Double { min(maximumDelay, max(minimumDelay, Self.jitterFactor * jitterSeconds)) }

    /// The interarrival jitter estimate (RFC 3550 A.8), in seconds.
    public var jitter: Double { jitterSeconds }

    /// Stores a packet that arrived at `arrival` seconds (any monotonic clock). A
    /// `retransmission` (RTX, or a repeat of a NACKed packet) does not count in the jitter
    /// estimate: it is late on purpose.
    @discardableResult
    public func insert(_ bytes: UnsafeRawBufferPointer, arrival: Double, retransmission: Bool = false) -> InsertResult {
        guard bytes.count <= slots.slotSize, let packet = try? RTPPacket(parsing: bytes) else {
            rejectedPackets += 1
            return .rejected
        }
        let sequence = unwrapper.unwrap(packet.sequenceNumber)
        if next == nil { next = sequence }
        // Before anything was delivered, an earlier packet moves the start back (the first
        // packets of a stream may arrive out of order too).
        if !started, let nextSequence = next, sequence < nextSequence, highest - sequence < Int64(slots.capacity) {
            next = sequence
        }
        guard let nextSequence = next, sequence >= nextSequence else {
            latePackets += 1
            return .late
        }
        if slots.holds(sequence) {
            duplicates += 1
            return .duplicate
        }
        // Make room: what falls out of the window is skipped. A jump past everything held
        // (the sender's numbering restarted, a long outage, a hostile peer) starts over at
        // this packet, without waiting for the numbers in between.
        if sequence - nextSequence >= Int64(slots.capacity) {
            if sequence - max(highest, nextSequence - 1) >= Int64(slots.capacity) {
                jumpsRestarted += 1
                advance(to: sequence)
            } else {
                advance(to: sequence - Int64(slots.capacity) + 1)
            }
        }
        slots.store(bytes, sequence: sequence, arrival: arrival)
        let timestamp = timestampUnwrapper.unwrap(packet.timestamp)
        slotTimestamps[slots.index(sequence)] = timestamp
        if firstArrival == nil { firstArrival = arrival }
        stored += 1
        highest = max(highest, sequence)
        guard !retransmission else { return .accepted }
        let transitNow = arrival - Double(timestamp) / clockRate
        if let transit {
            // A timestamp jump (or a pause the timestamps did not follow) is no jitter.
            let change = abs(transitNow - transit)
            if change > RemoteInputLimits.maxTransitJump {
                timestampJumps += 1
            } else {
                jitterSeconds += (change - jitterSeconds) / 16
            }
        }
        transit = transitNow
        // The playout clock follows the fastest packet; it creeps up slowly so that a path
        // that got slower for good (or a sender clock running slow) is followed, and starts
        // over after a jump (a new source, a long pause with a timestamp jump).
        if let base = minimumTransit, abs(transitNow - base) < RemoteInputLimits.maxTransitJump {
            minimumTransit = transitNow < base ? transitNow : base + (transitNow - base) / 1024
        } else {
            minimumTransit = transitNow
        }
        return .accepted
    }

    /// When the packet in the slot of `sequence` is due for playout: never later than
    /// ``maximumDelay`` after it came (a timestamp jump moves the playout clock).
    func due(_ sequence: Int64) -> Double {
        guard maximumDelay > 0, let base = minimumTransit else { return -.infinity }
        let planned = Double(slotTimestamps[slots.index(sequence)]) / clockRate + base + targetDelay
        return min(planned, slots.arrival(sequence) + maximumDelay)
    }

    var pendingGap: (first: Int64, count: Int)?
    /// Whether a packet or gap has been delivered (the start is fixed from then on).
    var started = false
    var firstArrival: Double?

    /// Whether `sequenceNumber` is the stream's first packet held (the start, before
    /// anything was delivered).
    func isStart(_ sequenceNumber: UInt16) -> Bool {
        guard !started, let next else { return false }
        return UInt16(truncatingIfNeeded: next) == sequenceNumber && slots.holds(next)
    }

    /// Fixes the start at the first packet held: earlier packets are no longer waited for
    /// (and are late if they come). For a start the codec knows needs nothing before it.
    func fixStart() {
        started = true
    }

    /// Skips everything before `sequence`, counting what was missing as one pending gap.
    /// Work: the skipped numbers, at most the capacity (all packets held are within it).
    func advance(to sequence: Int64) {
        guard let first = next, sequence > first else { return }
        let missing = Int(sequence - first)
        if missing >= slots.capacity {
            slots.clearAll()
            stored = 0
            visited += slots.capacity
        } else {
            for current in first..<sequence where slots.holds(current) {
                slots.clear(current)
                stored -= 1
            }
            visited += missing
        }
        next = sequence
        lostPackets += missing
        pendingGap = (pendingGap?.first ?? first, (pendingGap?.count ?? 0) + missing)
    }

    /// The next event in sequence order at time `now`: a packet, a gap (once the wait for a
    /// missing packet is over), or nil when waiting.
    public func pop(now: Double) -> Event? {
        if let gap = pendingGap {
            pendingGap = nil
            started = true
            return .gap(first: UInt16(truncatingIfNeeded: gap.first), count: gap.count)
        }
        guard let current = next, stored > 0 else { return nil }
        // The stream's first packets wait ``maximumWait`` for earlier ones that took longer.
        if !started, let firstArrival, now - firstArrival < maximumWait { return nil }
        if let bytes = slots.bytes(current), let packet = try? RTPPacket(parsing: bytes) {
            guard now >= due(current) else { return nil }
            slots.clear(current)
            stored -= 1
            next = current + 1
            started = true
            return .packet(packet)
        }
        // A hole: find the first packet after it, and wait for the hole as long as allowed.
        guard let after = firstHeld(after: current), now - slots.arrival(after) >= maximumWait, now >= due(after) else {
            return nil
        }
        next = after
        started = true
        lostPackets += Int(after - current)
        return .gap(first: UInt16(truncatingIfNeeded: current), count: Int(after - current))
    }

    /// When ``pop(now:)`` has something next as things stand, in seconds: `-infinity` at once,
    /// `infinity` not before another packet arrives. It holds until the next insert (which
    /// alone moves due times), so a timer may skip the buffer until then.
    public var nextEventTime: Double {
        if pendingGap != nil { return -.infinity }
        guard let current = next, stored > 0 else { return .infinity }
        let startWait = started ? -Double.infinity : (firstArrival.map { $0 + maximumWait } ?? -.infinity)
        if slots.holds(current) { return max(startWait, due(current)) }
        guard let after = firstHeld(after: current) else { return .infinity }
        return max(startWait, slots.arrival(after) + maximumWait, due(after))
    }

    /// The first sequence number after `sequence` whose packet is stored.
    func firstHeld(after sequence: Int64) -> Int64? {
        var after = sequence + 1
        while after <= highest, !slots.holds(after) { after += 1 }
        visited += Int(after - sequence)
        return after <= highest ? after : nil
    }

    /// Skips whatever is missing right now and delivers what is stored (at the end of a stream).
    public func flush() -> Event? {
        pop(now: .infinity)
    }
}
