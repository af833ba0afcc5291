internal import COpus
import SwiftRTCCore

/// What went wrong in ``OpusEncoder`` or ``OpusDecoder``: a parameter out of range, a frame
/// that does not fit, or an error code from libopus.
public enum OpusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Channels must be 1 or 2.
    case invalidChannels(Int)
    /// Opus frames here are 10, 20, 40 or 60 ms: 480, 960, 1920 or 2880 samples per channel.
    case invalidFrameDuration(samplesPerChannel: Int)
    /// Bitrate in bits per second must be within ``OpusEncoderConfiguration/bitrateRange``.
    case invalidBitrate(Int)
    /// Complexity must be 0...10.
    case invalidComplexity(Int)
    /// Expected packet loss must be 0...100 percent.
    case invalidExpectedPacketLoss(Int)
    /// A frame has a different channel count than the encoder was made for.
    case channelMismatch(expected: Int, got: Int)
    /// The frame is not an Opus frame.
    case wrongCodec(EncodedFrame.Codec)
    /// libopus returned an error code from `operation`.
    case library(operation: String, code: Int32)

    /// A sentence naming the codec, what was wrong and the allowed values.
    public var description: String {
        switch self {
        case .invalidChannels(let n): "Opus: channels must be 1 or 2, got \(n)"
        case .invalidFrameDuration(let n):
            "Opus: frame of \(n) samples per channel is not 10, 20, 40 or 60 ms at 48 kHz (480, 960, 1920, 2880)"
        case .invalidBitrate(let b): "Opus: bitrate \(b) bit/s is outside 6000...510000"
        case .invalidComplexity(let c): "Opus: complexity \(c) is outside 0...10"
        case .invalidExpectedPacketLoss(let p): "Opus: expected packet loss \(p)% is outside 0...100"
        case .channelMismatch(let expected, let got): "Opus: frame has \(got) channels, the codec \(expected)"
        case .wrongCodec(let codec): "Opus: got a \(codec.rawValue) frame"
        case .library(let operation, let code):
            "Opus: \(operation) failed: \(String(cString: opus_strerror(code))) (\(code))"
        }
    }
}
