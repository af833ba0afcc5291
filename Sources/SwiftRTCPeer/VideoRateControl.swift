import SwiftRTCCodecs
import SwiftRTCCongestion
import SwiftRTCRTP

/// Keeps a video sender's VP8 encoder at the congestion controller's share for video: its
/// target bitrate follows the share (changed when it moves by 5% or more), and below the
/// low-bitrate threshold its frame rate goes down (``BitrateAllocation/frameRate``), frames
/// above that rate being skipped before encoding.
struct VideoRateControl {
    /// The relative change of the share that reconfigures the encoder.
    static let hysteresis = 0.05
    private var lastTimestamp: UInt64?

    /// The encoder bitrate for a share (within what libvpx accepts).
    static func encoderBitrate(_ share: Int) -> Int {
        min(
            max(share, VP8EncoderConfiguration.bitrateRange.lowerBound),
            VP8EncoderConfiguration.bitrateRange.upperBound
        )
    }

    /// Whether `frame` is encoded at the share `target` (bits/s); reconfigures `encoder`
    /// when the share or the frame rate it affords changed.
    mutating func admit(_ frame: VideoFrame, target: Int, encoder: VP8Encoder, maximumFrameRate: Double) -> Bool {
        let configuration = encoder.configuration
        let frameRate = BitrateAllocation.frameRate(
            bitrate: target,
            width: configuration.width,
            height: configuration.height,
            maximum: maximumFrameRate
        ).rounded()
        let bitrate = Self.encoderBitrate(target)
        let moved =
            abs(Double(bitrate - configuration.targetBitrate)) >= Self.hysteresis * Double(configuration.targetBitrate)
        if moved || frameRate != configuration.frameRate {
            var next = configuration
            next.targetBitrate = bitrate
            next.frameRate = frameRate
            try? encoder.apply(next)
        }
        // Skip frames that come sooner than the frame rate allows (10% slack for jitter): the
        // estimate's rate, or the configured most.
        if let last = lastTimestamp, Double(frame.timestamp &- last) < 90_000 / frameRate * 0.9 {
            return false
        }
        lastTimestamp = frame.timestamp
        return true
    }
}
