import SwiftRTCRTP

/// The receiver's side of transport-wide congestion control
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3): remembers when each
/// transport-wide sequence number arrived and turns the arrivals since the last feedback into
/// ``TransportLayerCC`` packets (sent every 100-250 ms, as ``FeedbackInterval`` says).
///
/// Arrivals live in a ring of ``initialCapacity`` entries that doubles, up to ``capacity``,
/// when the packets between two feedbacks need more: an audio call's stays at its first size,
/// and recording a packet allocates only when the ring grows (at most 4 times, whatever a
/// peer sends). A packet older than the last feedback is not reported again; a jump ahead of
/// more than ``capacity`` forgets what was not reported yet.
public struct TransportFeedbackRecorder: Sendable {
    /// Sequence numbers the ring holds at most.
    public static let capacity = 4096
    /// Sequence numbers the ring holds before more are needed.
    public static let initialCapacity = 256
    /// Statuses one feedback packet carries at most (the rest go into the next one).
    public static let maximumStatuses = 400

    /// Arrival times in microseconds by unwrapped sequence number modulo the ring's size
    /// (a power of two); -1: none.
    private var arrivals: [Int64]
    private var unwrapper = SequenceUnwrapper()
    /// The first unwrapped sequence number not reported yet, and the highest received.
    private var nextToReport: Int64?
    private var highest: Int64 = -1
    private var feedbackCount: UInt8 = 0
    /// Packets recorded (for stats).
    public private(set) var packetsRecorded: Int64 = 0

    /// Creates an empty recorder (a ring of ``initialCapacity``).
    public init() {
        arrivals = [Int64](repeating: -1, count: Self.initialCapacity)
    }

    /// Sequence numbers the ring holds now.
    var ringSize: Int { arrivals.count }

    /// Records that the packet with transport-wide `sequenceNumber` arrived at `arrival`
    /// (microseconds on a monotonic clock). No allocation unless the ring grows.
    public mutating func record(sequenceNumber: UInt16, arrival: Int64) {
        let sequence = unwrapper.unwrap(sequenceNumber)
        packetsRecorded += 1
        if let next = nextToReport {
            guard sequence >= next else { return }  // already reported
            if sequence - next >= Int64(arrivals.count), arrivals.count < Self.capacity {
                grow(toHold: sequence - next + 1, from: next)
            }
            if sequence - next >= Int64(arrivals.count) {
                // Too far ahead: what the ring cannot hold any more is given up.
                let size = Int64(arrivals.count)
                let first = sequence - size + 1
                for s in next..<min(first, next + size) { arrivals[index(s)] = -1 }
                nextToReport = first
            }
        } else {
            nextToReport = sequence
        }
        arrivals[index(sequence)] = arrival
        highest = max(highest, sequence)
    }

    /// Whether arrivals wait to be reported.
    public var hasPendingFeedback: Bool {
        guard let next = nextToReport else { return false }
        return highest >= next
    }

    /// The next feedback packet about the arrivals since the last one, or nil if there are
    /// none. Call again while it returns packets (each holds at most ``maximumStatuses``).
    ///
    /// The reference time is the first reported arrival rounded down to 64 ms; each received
    /// packet's delta counts 250 µs from the previous received one (the first from the
    /// reference time), as a byte when it fits (0...63.75 ms), else as a signed 16-bit value.
    public mutating func makeFeedback(senderSSRC: UInt32, mediaSSRC: UInt32) -> TransportLayerCC? {
        guard var base = nextToReport, highest >= base else { return nil }
        // The reference time comes from the first received packet from the base on.
        var first = base
        while first <= highest, arrivals[index(first)] < 0 { first += 1 }
        guard first <= highest else { return nil }
        if first - base >= Int64(Self.maximumStatuses) {
            // More losses in a row than one feedback holds: the oldest go unreported, so that
            // this feedback reaches the next arrival (else none would be sent until the ring
            // overflowed).
            base = first - Int64(Self.maximumStatuses) + 1
        }
        let end = min(highest, base + Int64(Self.maximumStatuses) - 1)
        let referenceTime = Self.floorDivide(arrivals[index(first)], 64_000)
        var previous = referenceTime * 64_000
        var statuses: [TransportLayerCC.Status] = []
        statuses.reserveCapacity(Int(end - base + 1))
        var last = base - 1
        for sequence in base...end {
            let arrival = arrivals[index(sequence)]
            if arrival < 0 {
                statuses.append(.notReceived)
                continue
            }
            // A delta beyond 16 bits ends this packet; the next one starts a new reference.
            let delta = Self.floorDivide(arrival - previous, 250)
            if delta < Int64(Int16.min) || delta > Int64(Int16.max) { break }
            statuses.append(.received(delta: Int(delta)))
            previous += delta * 250
            last = sequence
        }
        // A feedback ends with a received packet.
        while statuses.last == .notReceived { statuses.removeLast() }
        guard last >= base else { return nil }
        for s in base...last { arrivals[index(s)] = -1 }
        nextToReport = last + 1
        let feedback = TransportLayerCC(
            senderSSRC: senderSSRC,
            mediaSSRC: mediaSSRC,
            baseSequenceNumber: UInt16(truncatingIfNeeded: base),
            referenceTime: (Int32(truncatingIfNeeded: referenceTime) << 8) >> 8,
            feedbackPacketCount: feedbackCount,
            statuses: statuses
        )
        feedbackCount &+= 1
        return feedback
    }

    private func index(_ sequence: Int64) -> Int { Int(sequence & Int64(arrivals.count - 1)) }

    /// Doubles the ring (up to ``capacity``) until it holds `span` sequence numbers, moving
    /// the arrivals not reported yet (from `next` to the highest).
    private mutating func grow(toHold span: Int64, from next: Int64) {
        var size = arrivals.count
        while Int64(size) < span, size < Self.capacity { size *= 2 }
        var grown = [Int64](repeating: -1, count: size)
        if highest >= next {
            for s in next...highest { grown[Int(s & Int64(size - 1))] = arrivals[index(s)] }
        }
        arrivals = grown
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }
}
