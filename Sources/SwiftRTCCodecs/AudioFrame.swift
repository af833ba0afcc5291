/// A block of raw audio: interleaved 16-bit PCM at 48 kHz (the rate WebRTC's Opus runs at).
public struct AudioFrame: Sendable, Hashable {
    /// SwiftRTC's audio sample rate.
    public static let sampleRate = 48_000

    /// Interleaved samples, `samplesPerChannel * channels` of them.
    public var samples: [Int16]
    /// 1 (mono) or 2 (stereo).
    public var channels: Int
    /// Presentation time of the first sample, in samples at 48 kHz.
    public var timestamp: UInt64

    /// A frame of interleaved `samples` (whole channel groups) for 1 or 2 `channels`.
    public init(samples: [Int16], channels: Int, timestamp: UInt64) {
        precondition(channels == 1 || channels == 2, "AudioFrame holds mono or stereo audio")
        precondition(samples.count % channels == 0, "AudioFrame samples must fill whole channel groups")
        self.samples = samples
        self.channels = channels
        self.timestamp = timestamp
    }

    /// Samples per channel.
    public var samplesPerChannel: Int { samples.count / channels }
    /// Duration in milliseconds.
    public var durationMilliseconds: Double { Double(samplesPerChannel) * 1000 / Double(Self.sampleRate) }
}
