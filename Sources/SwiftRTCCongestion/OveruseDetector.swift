import SwiftRTCRTP

/// The over-use detector of GCC (draft-ietf-rmcat-gcc-02 §5.4) with its adaptive threshold
/// (§5.4, `gamma`): the modified trend above the threshold for more than
/// ``overuseTime`` (and still growing) is over-use, below minus the threshold under-use. The
/// threshold follows the trend's magnitude, quickly up (``kUp``) and slowly down
/// (``kDown``), within 6...600 ms, so it neither starves against TCP nor reacts to noise.
public struct OveruseDetector: Sendable {
    /// Threshold adaptation gains (per ms).
    public static let kUp = 0.0087, kDown = 0.039
    /// Over-use must last this long (ms) before it is signalled.
    public static let overuseTime = 10.0
    /// The threshold's range (ms).
    public static let thresholdRange = 6.0...600.0

    /// The current threshold (ms), initially 12.5.
    public private(set) var threshold = 12.5
    /// The current state.
    public private(set) var usage = BandwidthUsage.normal
    private var timeOverUsing = -1.0
    private var overuseCount = 0
    private var previousTrend = 0.0
    private var lastUpdate: Int64?

    /// Creates a detector.
    public init() {}

    /// Compares `modifiedTrend` (ms) with the threshold for a group that arrived at `now`
    /// (µs), `sendDelta` (µs) after the previous one; `deltaCount` is the number of group
    /// deltas seen so far. Returns the new state.
    public mutating func detect(
        modifiedTrend: Double,
        trend: Double,
        sendDelta: Int64,
        deltaCount: Int,
        now: Int64
    ) -> BandwidthUsage {
        guard deltaCount >= 2 else { return usage }
        if modifiedTrend > threshold {
            let sendDeltaMs = Double(sendDelta) / 1000
            timeOverUsing = timeOverUsing < 0 ? sendDeltaMs / 2 : timeOverUsing + sendDeltaMs
            overuseCount += 1
            if timeOverUsing > Self.overuseTime, overuseCount > 1, trend >= previousTrend {
                timeOverUsing = 0
                overuseCount = 0
                usage = .overusing
            }
        } else if modifiedTrend < -threshold {
            timeOverUsing = -1
            overuseCount = 0
            usage = .underusing
        } else {
            timeOverUsing = -1
            overuseCount = 0
            usage = .normal
        }
        previousTrend = trend
        adaptThreshold(modifiedTrend, now: now)
        return usage
    }

    private mutating func adaptThreshold(_ modifiedTrend: Double, now: Int64) {
        let last = lastUpdate ?? now
        lastUpdate = now
        let magnitude = abs(modifiedTrend)
        // A spike far above the threshold (a route change, a burst) is not learnt from.
        if magnitude > threshold + 15 { return }
        let k = magnitude < threshold ? Self.kDown : Self.kUp
        let elapsed = min(Double(now - last) / 1000, 100)
        threshold += k * (magnitude - threshold) * elapsed
        threshold = min(max(threshold, Self.thresholdRange.lowerBound), Self.thresholdRange.upperBound)
    }
}
