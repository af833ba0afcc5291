import SwiftRTCCodecs
import SwiftRTCCore

/// A frame that carries its presentation time as ticks of a media clock.
public protocol TimedFrame: Sendable {
    /// Presentation time in ticks of ``clockRate`` (may wrap at ``timestampBits``).
    var mediaTimestamp: UInt64 { get }
    /// Ticks per second.
    var clockRate: Int { get }
    /// Width of the timestamp: 64 for raw frames, 32 for RTP timestamps, which wrap.
    static var timestampBits: Int { get }
}

extension AudioFrame: TimedFrame {
    /// The frame's timestamp.
    public var mediaTimestamp: UInt64 { timestamp }
    /// 48 kHz.
    public var clockRate: Int { AudioFrame.sampleRate }
    /// Raw frame timestamps do not wrap.
    public static var timestampBits: Int { 64 }
}

extension VideoFrame: TimedFrame {
    /// The frame's timestamp.
    public var mediaTimestamp: UInt64 { timestamp }
    /// 90 kHz, the RTP video clock.
    public var clockRate: Int { 90_000 }
    /// Raw frame timestamps do not wrap.
    public static var timestampBits: Int { 64 }
}

extension EncodedFrame: TimedFrame {
    /// The RTP timestamp.
    public var mediaTimestamp: UInt64 { UInt64(timestamp) }
    /// The codec's RTP clock rate.
    public var clockRate: Int { Int(codec.clockRate) }
    /// RTP timestamps wrap at 2^32.
    public static var timestampBits: Int { 32 }
}
