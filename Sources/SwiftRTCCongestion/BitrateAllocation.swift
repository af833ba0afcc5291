import SwiftRTCRTP

/// How a transport's target bitrate is shared between audio and video, within the caps, and
/// the video frame rate a bitrate affords.
///
/// Audio keeps its share first (its bitrate is small and its loss is heard at once); video
/// gets the rest, at least ``minimumVideoBitrate`` and at most its cap. Below
/// ``lowBitrateThreshold`` (for 640x480, scaled by pixel count) video drops frames in
/// proportion, down to ``minimumFrameRate``, so each frame keeps enough bits to be watchable.
public struct BitrateAllocation: Sendable, Hashable {
    /// Video never gets less (bits/s).
    public static let minimumVideoBitrate = 30_000
    /// Below this, at 640x480, the frame rate goes down (bits/s).
    public static let lowBitrateThreshold = 150_000
    /// The lowest frame rate.
    public static let minimumFrameRate = 5.0

    /// The audio bitrate (bits/s).
    public var audio: Int
    /// The video target bitrate (bits/s).
    public var video: Int

    /// Shares `target` (bits/s): audio gets `audioBitrate` (within `audioCap`), video the
    /// rest within `videoCap` (nil: uncapped).
    public init(target: Int, audioBitrate: Int, audioCap: Int?, videoCap: Int?) {
        audio = min(audioBitrate, audioCap ?? Int.max)
        video = max(Self.minimumVideoBitrate, target - audio)
        if let videoCap { video = min(video, max(videoCap, 1)) }
    }

    /// The frame rate for video at `bitrate` (bits/s) and `width` x `height`, out of
    /// `maximum` frames per second.
    public static func frameRate(bitrate: Int, width: Int, height: Int, maximum: Double) -> Double {
        let pixels = Double(max(1, width * height))
        let threshold = Double(lowBitrateThreshold) * pixels / (640 * 480)
        guard Double(bitrate) < threshold else { return maximum }
        return min(maximum, max(minimumFrameRate, maximum * Double(bitrate) / threshold))
    }
}
