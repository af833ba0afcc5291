import SwiftRTCRTP

/// The delay-based rate controller of GCC (draft-ietf-rmcat-gcc-02 §5.5): a state machine
/// driven by the over-use detector.
///
/// | usage \ state | hold     | increase | decrease |
/// |---------------|----------|----------|----------|
/// | over-use      | decrease | decrease | —        |
/// | normal        | increase | —        | hold     |
/// | under-use     | —        | hold     | hold     |
///
/// Increase is multiplicative (8% per second) while far from the last known link capacity
/// and additive (about one packet per response time) near it; decrease sets the rate to
/// ``beta`` times the throughput that got through. Until the first over-use the increase is
/// ``startGrowthRate`` (doubling per second, a stand-in for libwebrtc's initial probing). The rate never
/// exceeds 1.5 times the acknowledged throughput plus 10 kbit/s, so an application-limited
/// sender does not build an estimate it never tested.
public struct AIMDRateController: Sendable {
    /// Multiplicative decrease factor.
    public static let beta = 0.85
    /// Continuous growth rate once converged: ln 1.08, 8% per second compounded over updates.
    public static let growthRate = 0.076_961
    /// Continuous growth rate before the first over-use: ln 2, doubling per second.
    public static let startGrowthRate = 0.693_147

    /// The states of the controller.
    public enum State: Sendable, Hashable { case hold, increase, decrease }

    /// The current rate (bits/s).
    public private(set) var bitrate: Int
    /// The current state.
    public private(set) var state = State.increase
    /// The allowed range (bits/s).
    public var range: ClosedRange<Int>
    /// Whether an over-use was seen (the start phase is over).
    public private(set) var hasDecreased = false
    /// The average and variance (normalized) of the throughput at over-use: the link capacity.
    private var linkCapacity: (average: Double, variance: Double)?
    private var lastUpdate: Int64?

    /// Creates a controller starting at `startBitrate` within `range`.
    public init(startBitrate: Int, range: ClosedRange<Int>) {
        self.range = range
        bitrate = min(max(startBitrate, range.lowerBound), range.upperBound)
    }

    /// Sets the rate (a loss-based decrease elsewhere, or a new cap).
    public mutating func set(bitrate: Int) {
        self.bitrate = min(max(bitrate, range.lowerBound), range.upperBound)
    }

    /// Updates the rate for `usage` at `now` (µs); `throughput` is the acknowledged (or
    /// incoming) bitrate if known, `roundTripTime` in µs.
    @discardableResult
    public mutating func update(usage: BandwidthUsage, throughput: Int?, roundTripTime: Int64, now: Int64) -> Int {
        switch (usage, state) {
        case (.overusing, _): state = .decrease
        case (.normal, .hold): state = .increase
        case (.normal, .decrease): state = .hold
        case (.underusing, _): state = .hold
        default: break
        }
        let elapsed = Double(min(now - (lastUpdate ?? now), 1_000_000)) / 1e6
        lastUpdate = now
        var next = bitrate
        switch state {
        case .hold:
            break
        case .increase:
            if let capacity = linkCapacity, let throughput,
                Double(throughput) > capacity.average + 3 * (capacity.variance * capacity.average).squareRoot()
            {
                linkCapacity = nil  // the link got faster: search multiplicatively again
            }
            let increase: Double
            if linkCapacity != nil {
                // Additive: one 1200-byte packet per response time (RTT + 100 ms).
                let responseTime = Double(roundTripTime) / 1e6 + 0.1
                increase = max(1000, elapsed * 1200 * 8 / responseTime)
            } else {
                let growth = hasDecreased ? Self.growthRate : Self.startGrowthRate
                increase = max(1000, Double(bitrate) * growth * elapsed)
            }
            next = bitrate + Int(increase)
            if let throughput { next = min(next, max(bitrate, throughput * 3 / 2 + 10_000)) }
        case .decrease:
            let measured = Double(throughput ?? bitrate)
            var decreased = Self.beta * measured
            if decreased > Double(bitrate), let capacity = linkCapacity { decreased = Self.beta * capacity.average }
            next = min(bitrate, Int(decreased))
            updateLinkCapacity(measured)
            hasDecreased = true
            state = .hold
        }
        set(bitrate: next)
        return bitrate
    }

    private mutating func updateLinkCapacity(_ sample: Double) {
        guard let capacity = linkCapacity else {
            linkCapacity = (sample, 0.4)
            return
        }
        // An exponential average; a sample far below resets it (the link got slower).
        if sample < capacity.average - 3 * (capacity.variance * capacity.average).squareRoot() {
            linkCapacity = (sample, 0.4)
            return
        }
        let average = 0.95 * capacity.average + 0.05 * sample
        let norm = max(average, 1)
        let variance = min(
            max(0.95 * capacity.variance + 0.05 * (average - sample) * (average - sample) / norm, 0.4),
            2.5
        )
        linkCapacity = (average, variance)
    }
}
