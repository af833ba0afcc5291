import SwiftRTCRTP

/// The bitrate that actually got through: bytes of packets that arrived in the last
/// ``window`` (by arrival time), over that window. Fed from transport-cc feedback (the
/// acknowledged bitrate of the sender) or from incoming packets (the receiver's rate).
///
/// The window's packets live in a ring of ``initialCapacity`` entries that doubles, up to
/// ``capacity``, when a window holds more packets: an audio call's stays at its first size,
/// a video call's grows within its first second, and adding allocates only then (at most 3
/// times).
public struct ThroughputEstimator: Sendable {
    /// The averaging window (µs).
    public let window: Int64
    /// Packets the ring holds at most; older ones drop out early at very high packet rates.
    public static let capacity = 2048
    /// Packets the ring holds before a window needs more.
    public static let initialCapacity = 256

    private var arrivals: [Int64]
    private var sizes: [Int32]
    private var head = 0, count = 0
    private var bytes = 0
    private var firstArrival: Int64?

    /// Creates an estimator averaging over `window` µs (500 ms by default).
    public init(window: Int64 = 500_000) {
        self.window = window
        arrivals = [Int64](repeating: 0, count: Self.initialCapacity)
        sizes = [Int32](repeating: 0, count: Self.initialCapacity)
    }

    /// Packets the ring holds now.
    var ringSize: Int { arrivals.count }

    /// Adds a packet of `size` bytes that arrived at `arrival` (µs).
    public mutating func add(arrival: Int64, size: Int) {
        if firstArrival == nil { firstArrival = arrival }
        if count == arrivals.count {
            if arrivals.count < Self.capacity { grow() } else { dropOldest() }
        }
        let slot = (head + count) % arrivals.count
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
        let newest = arrivals[(head + count - 1) % arrivals.count]
        let span = min(window, newest - first)
        guard span >= window / 5 else { return nil }
        return Int(Int64(bytes) * 8 * 1_000_000 / span)
    }

    private mutating func dropOldest() {
        bytes -= Int(sizes[head])
        head = (head + 1) % arrivals.count
        count -= 1
    }

    /// Doubles the ring, its packets moved to the start in order.
    private mutating func grow() {
        let size = arrivals.count
        var grownArrivals = [Int64](repeating: 0, count: min(size * 2, Self.capacity))
        var grownSizes = [Int32](repeating: 0, count: grownArrivals.count)
        for i in 0..<count {
            grownArrivals[i] = arrivals[(head + i) % size]
            grownSizes[i] = sizes[(head + i) % size]
        }
        arrivals = grownArrivals
        sizes = grownSizes
        head = 0
    }
}
