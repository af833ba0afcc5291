import SwiftRTCRTP

/// The delay-based half of GCC (draft-ietf-rmcat-gcc-02 §5): packets (send time, arrival
/// time, size) go through the ``InterArrival`` grouping, the ``TrendlineEstimator`` and the
/// ``OveruseDetector``; at each update the ``AIMDRateController`` moves the rate by the
/// strongest signal since the previous update and the throughput that got through.
///
/// Adding a packet does not allocate (the sender feeds it from transport-cc feedback, the
/// receiver per packet with abs-send-time for REMB).
public struct DelayBasedEstimator: Sendable {
    private var interArrival = InterArrival()
    private var trendline = TrendlineEstimator()
    private var detector = OveruseDetector()
    private var controller: AIMDRateController
    private var throughputEstimator = ThroughputEstimator()
    /// The strongest usage signal since the last rate update (over-use wins).
    private var pendingUsage: BandwidthUsage?
    /// Group deltas seen (for tests and stats).
    public private(set) var groupDeltas = 0

    /// Creates an estimator starting at `startBitrate` (bits/s) within `range`.
    public init(startBitrate: Int, range: ClosedRange<Int>) {
        controller = AIMDRateController(startBitrate: startBitrate, range: range)
    }

    /// The estimate (bits/s).
    public var bitrate: Int { controller.bitrate }
    /// The detector's current conclusion.
    public var usage: BandwidthUsage { detector.usage }
    /// The detector's threshold (ms).
    public var threshold: Double { detector.threshold }
    /// The throughput that got through (bits/s), if known.
    public var throughput: Int? { throughputEstimator.bitrate }
    /// The controller's state.
    public var state: AIMDRateController.State { controller.state }
    /// Whether an over-use was seen.
    public var hasDecreased: Bool { controller.hasDecreased }

    /// The allowed range (bits/s).
    public var range: ClosedRange<Int> {
        get { controller.range }
        set {
            controller.range = newValue
            controller.set(bitrate: controller.bitrate)
        }
    }

    /// Adds a received packet (times in µs; the send time on the sender's clock, the arrival
    /// on the receiver's).
    public mutating func add(sendTime: Int64, arrivalTime: Int64, size: Int) {
        throughputEstimator.add(arrival: arrivalTime, size: size)
        guard let delta = interArrival.add(sendTime: sendTime, arrivalTime: arrivalTime, size: size) else { return }
        groupDeltas += 1
        let modified = trendline.update(delta)
        let usage = detector.detect(
            modifiedTrend: modified,
            trend: trendline.trend,
            sendDelta: delta.sendDelta,
            deltaCount: trendline.deltaCount,
            now: delta.arrivalTime
        )
        switch (pendingUsage, usage) {
        case (.overusing, _): break
        case (.underusing, .normal): break
        default: pendingUsage = usage
        }
    }

    /// Adds the packets a transport-cc feedback reported as received.
    public mutating func add(_ results: [PacketResult]) {
        for result in results {
            guard let arrival = result.arrivalTime else { continue }
            add(sendTime: result.sendTime, arrivalTime: arrival, size: result.size)
        }
    }

    /// Moves the rate by what was seen since the last update; `now` and `roundTripTime` in
    /// µs. Returns the estimate.
    @discardableResult
    public mutating func updateRate(roundTripTime: Int64, now: Int64) -> Int {
        let usage = pendingUsage ?? detector.usage
        pendingUsage = nil
        return controller.update(
            usage: usage,
            throughput: throughputEstimator.bitrate,
            roundTripTime: roundTripTime,
            now: now
        )
    }

    /// Forgets the packet groups (the send-time axis started again); the rate stays.
    public mutating func restartGrouping() { interArrival = InterArrival() }

    /// Sets the rate (to follow a lower loss-based estimate).
    public mutating func set(bitrate: Int) { controller.set(bitrate: bitrate) }
}
