import SwiftRTCRTP

/// A leaky-bucket packet pacer's clock: video packets leave at ``multiplier`` times the target
/// bitrate (as libwebrtc's pacer), so a frame's packets are spread over part of the frame
/// interval instead of hitting the path's queue at once. A stream that runs above the target
/// (forwarded, pre-encoded frames the estimate cannot slow down) is paced at the multiplier
/// times its own measured rate, so the pacer never falls behind it. A frame never takes longer than
/// ``maximumFrameTime`` (the rate rises for big keyframes), and packets due within
/// ``burstAllowance`` go together so the sender sleeps at most once per few milliseconds.
/// Pure arithmetic on µs timestamps; no allocation.
public struct PacingBudget: Sendable {
    /// The pacing rate over the target bitrate.
    public static let multiplier = 2.5
    /// Packets due this soon (µs) are sent now.
    public static let burstAllowance: Int64 = 2_000
    /// The longest a frame's packets are spread over (µs).
    public static let maximumFrameTime: Int64 = 200_000

    /// When the next packet may leave (µs).
    private var nextSendTime: Int64 = 0
    /// The pacing rate for the current frame (bits/s).
    public private(set) var rate = 0
    /// The stream's measured rate (bits/s, exponential average over frames).
    public private(set) var mediaRate = 0.0
    private var previousFrame: (start: Int64, bytes: Int)?

    /// Creates a budget.
    public init() {}

    /// Starts a frame of `bytes` for a `targetBitrate` (bits/s) at `now` (µs).
    public mutating func startFrame(bytes: Int, targetBitrate: Int, now: Int64) {
        if let previous = previousFrame, now > previous.start {
            let sample = Double(previous.bytes * 8) * 1e6 / Double(max(now - previous.start, 5_000))
            mediaRate = mediaRate == 0 ? sample : 0.8 * mediaRate + 0.2 * sample
        }
        previousFrame = (now, bytes)
        let paced = Int(max(Double(max(targetBitrate, 10_000)), mediaRate) * Self.multiplier)
        let drain = Int(Int64(bytes) * 8 * 1_000_000 / Self.maximumFrameTime)
        rate = max(paced, drain)
        // Idle time does not build up credit beyond the burst allowance.
        nextSendTime = max(nextSendTime, now - Self.burstAllowance)
    }

    /// How long (µs) to wait before the next packet may leave at `now`; 0: send it now.
    public func wait(now: Int64) -> Int64 {
        let due = nextSendTime - now
        return due <= Self.burstAllowance ? 0 : due
    }

    /// Accounts a packet of `bytes` sent at `now`.
    public mutating func sent(bytes: Int, now: Int64) {
        nextSendTime = max(nextSendTime, now - Self.burstAllowance) + Int64(bytes) * 8 * 1_000_000 / Int64(max(rate, 1))
    }
}
