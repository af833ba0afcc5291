import SwiftRTCRTP

/// The trendline filter of GCC (as libwebrtc runs it in place of the draft's Kalman filter):
/// the one-way delay variations of packet groups are accumulated, exponentially smoothed, and
/// the slope of a least-squares line through the last ``windowSize`` points (smoothed delay
/// over arrival time) tells whether queueing delay grows. The output is the slope scaled by
/// the number of deltas seen (at most 60) and a gain, in ms, for the ``OveruseDetector``.
public struct TrendlineEstimator: Sendable {
    /// Points the slope is fitted over.
    public static let windowSize = 20
    /// Weight of the previous smoothed delay.
    public static let smoothing = 0.9
    /// Gain applied to the slope.
    public static let thresholdGain = 4.0

    private var points: [(x: Double, y: Double)]
    private var firstArrival: Int64?
    private var accumulatedDelay = 0.0
    private var smoothedDelay = 0.0
    /// Deltas seen (capped at 1000).
    public private(set) var deltaCount = 0
    /// The last fitted slope (ms of delay growth per ms).
    public private(set) var trend = 0.0

    /// Creates an empty filter.
    public init() {
        points = []
        points.reserveCapacity(Self.windowSize + 1)
    }

    /// Adds one group delta; returns the modified trend (ms) the detector compares with its
    /// threshold.
    public mutating func update(_ delta: InterArrival.Delta) -> Double {
        let variation = Double(delta.arrivalDelta - delta.sendDelta) / 1000
        deltaCount = min(deltaCount + 1, 1000)
        let first = firstArrival ?? delta.arrivalTime
        firstArrival = first
        accumulatedDelay += variation
        smoothedDelay = Self.smoothing * smoothedDelay + (1 - Self.smoothing) * accumulatedDelay
        points.append((Double(delta.arrivalTime - first) / 1000, smoothedDelay))
        if points.count > Self.windowSize { points.removeFirst() }
        if points.count == Self.windowSize, let slope = Self.slope(points) { trend = slope }
        return modifiedTrend
    }

    /// The slope scaled for the detector: `min(deltas, 60) * trend * gain`.
    public var modifiedTrend: Double { Double(min(deltaCount, 60)) * trend * Self.thresholdGain }

    /// The least-squares slope of the points, nil if they share one x.
    static func slope(_ points: [(x: Double, y: Double)]) -> Double? {
        let n = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.x } / n
        let meanY = points.reduce(0) { $0 + $1.y } / n
        var numerator = 0.0, denominator = 0.0
        for p in points {
            numerator += (p.x - meanX) * (p.y - meanY)
            denominator += (p.x - meanX) * (p.x - meanX)
        }
        return denominator == 0 ? nil : numerator / denominator
    }
}
