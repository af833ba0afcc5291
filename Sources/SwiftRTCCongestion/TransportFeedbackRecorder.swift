import SwiftRTCRTP

/// The receiver's side of transport-wide congestion control
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3): remembers when each
/// transport-wide sequence number arrived and turns the arrivals since the last feedback into
/// ``TransportLayerCC`` packets (sent every 100-250 ms, as ``FeedbackInterval`` says).
///
/// Arrivals live in a ring preallocated once (``capacity`` entries): recording a packet never
/// allocates. A packet older than the last feedback is not reported again; a jump ahead of more
/// than the ring forgets what was not reported yet.
public struct TransportFeedbackRecorder: Sendable {
    /// Sequence numbers the ring holds.
    public static let capacity = 4096
    /// Statuses one feedback packet carries at most (the rest go into the next one).
    public static let maximumStatuses = 400

    /// Arrival times in microseconds by unwrapped sequence number modulo ``capacity``; -1: none.
    private var arrivals: [Int64]
    private var unwrapper = SequenceUnwrapper()
    /// The first unwrapped sequence number not reported yet, and the highest received.
    private var nextToReport: Int64?
    private var highest: Int64 = -1
    private var feedbackCount: UInt8 = 0
    /// Packets recorded (for stats).
    public private(set) var packetsRecorded: Int64 = 0

    /// Creates an empty recorder (the ring is allocated here, once).
    public init() {
        arrivals = [Int64](repeating: -1, count: Self.capacity)
    }

    /// Records that the packet with transport-wide `sequenceNumber` arrived at `arrival`
    /// (microseconds on a monotonic clock). No allocation.
    public mutating func record(sequenceNumber: UInt16, arrival: Int64) {
        let sequence = unwrapper.unwrap(sequenceNumber)
        packetsRecorded += 1
        if let next = nextToReport {
            guard sequence >= next else { return }  // already reported
            if sequence - next >= Int64(Self.capacity) {
                // Too far ahead: what the ring cannot hold any more is given up.
                let first = sequence - Int64(Self.capacity) + 1
                for s in next..<min(first, next + Int64(Self.capacity)) { arrivals[index(s)] = -1 }
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
        guard let base = nextToReport, highest >= base else { return nil }
        // The reference time comes from the first received packet from the base on.
        var first = base
        while first <= highest, arrivals[index(first)] < 0 { first += 1 }
        guard first <= highest else { return nil }
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

    private func index(_ sequence: Int64) -> Int { Int(sequence & Int64(Self.capacity - 1)) }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }
}
