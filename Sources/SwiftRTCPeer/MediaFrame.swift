import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCRTP

/// A raw or encoded media frame: what a local track takes and a remote track gives.
public enum MediaFrame: Sendable {
    /// 48 kHz PCM.
    case audio(AudioFrame)
    /// I420 video.
    case video(VideoFrame)
    /// An already encoded frame, sent as is (pass-through).
    case encoded(EncodedFrame)
}
