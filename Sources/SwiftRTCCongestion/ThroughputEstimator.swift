import SwiftRTCRTP

/// The bitrate that actually got through: bytes of packets that arrived in the last
/// ``window`` (by arrival time), over that window. Fed from transport-cc feedback (the
/// acknowledged bitrate of the sender) or from incoming packets (the receiver's rate). A ring
/// preallocated once; adding never allocates.
public struct ThroughputEstimator: Sendable {
    /// The averaging window (µs).
    public let window: Int64
    /// Packets the ring holds; older ones drop out early at very high packet rates.
    public static let capacity = 2048

    private var arrivals: [Int64]
    private var sizes: [Int32]
    private var head = 0, count = 0
    private var bytes = 0
    private var firstArrival: Int64?

    /// Creates an estimator averaging over `window` µs (500 ms by default).
    public init(window: Int64 = 500_000) {
        self.window = window
        arrivals = [Int64](repeating: 0, count: Self.capacity)
        sizes = [Int32](repeating: 0, count: Self.capacity)
    }

    /// Adds a packet of `size` bytes that arrived at `arrival` (µs).
    public mutating func add(arrival: Int64, size: Int) {
        if firstArrival == nil { firstArrival = arrival }
        if count == Self.capacity { dropOldest() }
        let slot = (head + count) % Self.capacity
        arrivals[slot] = arrival
        sizes[slot] = Int32(clamping: size)
        bytes += size
        count += 1
        while count > 0, arrival - arrivals[head] > window { dropOldest() }
    }

    /// Bits per second over the window ending at the newest packet; nil until packets span
    /// at least a fifth of the window.
    public var bitrate: Int? {
        guard count > 0, let first = firstArrival else { return nil }
        let newest = arrivals[(head + count - 1) % Self.capacity]
        let span = min(window, newest - first)
        guard span >= window / 5 else { return nil }
        return Int(Int64(bytes) * 8 * 1_000_000 / span)
    }

    private mutating func dropOldest() {
        bytes -= Int(sizes[head])
        head = (head + 1) % Self.capacity
        count -= 1
    }
}
