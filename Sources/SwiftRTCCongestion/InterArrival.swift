import SwiftRTCRTP

/// Groups packets into send-time bursts and yields the deltas between consecutive groups
/// (GCC, draft-ietf-rmcat-gcc-02 §5.2): a group is the packets sent within
/// ``burstThreshold`` of its first one, plus packets that arrive in a burst behind it (arrival
/// spacing at most ``burstThreshold`` and less than their send spacing, as after a queue
/// empties). For each completed group the receiver sees
/// `d(i) = (t(i) - t(i-1)) - (T(i) - T(i-1))`: arrival delta minus send delta of the groups'
/// last packets.
public struct InterArrival: Sendable {
    /// Packets sent closer than this (µs) to a group's first one belong to it.
    public static let burstThreshold: Int64 = 5_000
    /// A burst is at most this long (µs, arrival).
    public static let maximumBurstDuration: Int64 = 100_000

    /// The deltas between two groups.
    public struct Delta: Sendable, Hashable {
        /// Send time delta of the groups' last packets (µs).
        public var sendDelta: Int64
        /// Arrival time delta of the groups' last packets (µs).
        public var arrivalDelta: Int64
        /// Size difference (bytes).
        public var sizeDelta: Int
        /// The later group's last arrival (µs), the time axis of the trendline.
        public var arrivalTime: Int64
    }

    private struct Group {
        var firstSend: Int64
        var lastSend: Int64
        var firstArrival: Int64
        var lastArrival: Int64
        var size: Int

        /// A group of one packet.
        init(sendTime: Int64, arrivalTime: Int64, size: Int) {
            firstSend = sendTime
            lastSend = sendTime
            firstArrival = arrivalTime
            lastArrival = arrivalTime
            self.size = size
        }
    }

    private var current: Group?
    private var previous: Group?

    /// Creates an empty grouping.
    public init() {}

    /// Adds a received packet; returns the deltas when it completes a group that has a
    /// predecessor. Packets sent before the current group started (reordered) are ignored.
    public mutating func add(sendTime: Int64, arrivalTime: Int64, size: Int) -> Delta? {
        guard var group = current else {
            current = Group(sendTime: sendTime, arrivalTime: arrivalTime, size: size)
            return nil
        }
        if sendTime < group.firstSend { return nil }
        if sendTime - group.firstSend <= Self.burstThreshold
            || belongsToBurst(group, sendTime: sendTime, arrivalTime: arrivalTime)
        {
            group.lastSend = max(group.lastSend, sendTime)
            group.lastArrival = max(group.lastArrival, arrivalTime)
            group.size += size
            current = group
            return nil
        }
        var delta: Delta?
        if let previous {
            let arrivalDelta = group.lastArrival - previous.lastArrival
            let sendDelta = group.lastSend - previous.lastSend
            if arrivalDelta >= 0 {
                delta = Delta(
                    sendDelta: sendDelta,
                    arrivalDelta: arrivalDelta,
                    sizeDelta: group.size - previous.size,
                    arrivalTime: group.lastArrival
                )
            }
        }
        previous = group
        current = Group(sendTime: sendTime, arrivalTime: arrivalTime, size: size)
        return delta
    }

    private func belongsToBurst(_ group: Group, sendTime: Int64, arrivalTime: Int64) -> Bool {
        let arrivalDelta = arrivalTime - group.lastArrival
        let sendDelta = sendTime - group.lastSend
        if sendDelta == 0 { return true }
        let propagationDelta = arrivalDelta - sendDelta
        return propagationDelta < 0 && arrivalDelta <= Self.burstThreshold
            && arrivalTime - group.firstArrival < Self.maximumBurstDuration
    }
}
