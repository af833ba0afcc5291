import SwiftRTCCore

/// What went wrong in ``VP8Encoder`` or ``VP8Decoder``: a setting out of range, a frame that
/// does not fit, a frame the decoder cannot use, or an error from libvpx.
public enum VP8Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// Width and height must be within 2...16383 (VP8's 14-bit size fields).
    case invalidSize(width: Int, height: Int)
    /// Frame rate must be within 1...120 frames per second.
    case invalidFrameRate(Double)
    /// Target bitrate must be within ``VP8EncoderConfiguration/bitrateRange``.
    case invalidBitrate(Int)
    /// Threads must be within 1...16.
    case invalidThreads(Int)
    /// Speed (libvpx cpu-used) must be within -16...16.
    case invalidSpeed(Int)
    /// The keyframe interval must be at least 1 frame.
    case invalidKeyframeInterval(Int)
    /// Temporal layers other than 1 or 3.
    case invalidTemporalLayers(Int)
    /// A ``VideoFrame`` whose planes are smaller than its size and strides say.
    case inconsistentFrame(width: Int, height: Int)
    /// The frame is not a VP8 frame.
    case wrongCodec(EncodedFrame.Codec)
    /// The decoder lost its reference (start of stream, an error or a corrupt frame) and drops
    /// delta frames until a keyframe arrives: ask the sender for one (PLI/FIR).
    case needsKeyframe
    /// The decoder rejected the frame or reported it corrupt; `detail` is libvpx's text.
    case corruptFrame(detail: String)
    /// A keyframe whose header states a picture larger than the decoder takes
    /// (``VP8Decoder/maximumPixels``), or an empty one: dropped before libvpx saw it.
    case frameTooLarge(width: Int, height: Int)
    /// libvpx returned an error from `operation`.
    case library(operation: String, detail: String)

    /// A sentence naming the codec, what was wrong and the allowed values.
    public var description: String {
        switch self {
        case .invalidSize(let w, let h): "VP8: size \(w)x\(h) is outside 2...16383"
        case .invalidFrameRate(let r): "VP8: frame rate \(r) is outside 1...120 fps"
        case .invalidBitrate(let b): "VP8: target bitrate \(b) bit/s is outside \(VP8EncoderConfiguration.bitrateRange)"
        case .invalidThreads(let t): "VP8: threads \(t) is outside 1...16"
        case .invalidSpeed(let s): "VP8: speed (cpu-used) \(s) is outside -16...16"
        case .invalidKeyframeInterval(let i): "VP8: keyframe interval \(i) must be at least 1 frame"
        case .invalidTemporalLayers(let n): "VP8: \(n) temporal layers (1 or 3 are made)"
        case .inconsistentFrame(let w, let h): "VP8: \(w)x\(h) frame has planes smaller than its size and strides"
        case .wrongCodec(let codec): "VP8: got a \(codec.rawValue) frame"
        case .needsKeyframe: "VP8: decoder needs a keyframe"
        case .corruptFrame(let detail): "VP8: corrupt frame: \(detail)"
        case .frameTooLarge(let w, let h): "VP8: a \(w)x\(h) keyframe is larger than the decoder takes, or empty"
        case .library(let operation, let detail): "VP8: \(operation) failed: \(detail)"
        }
    }
}
