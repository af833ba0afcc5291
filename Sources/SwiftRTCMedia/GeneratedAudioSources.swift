import SwiftRTCCodecs

/// Digital silence: all-zero 48 kHz frames, endlessly.
public struct SilenceSource: MediaSource, Sendable {
    /// 1 (mono) or 2 (stereo).
    public var channels: Int
    /// Frame length in milliseconds (10, 20, 40 or 60 for Opus).
    public var frameMilliseconds: Int
    private var sampleIndex: UInt64 = 0

    public init(channels: Int = 1, frameMilliseconds: Int = 20) {
        self.channels = channels
        self.frameMilliseconds = frameMilliseconds
    }

    public mutating func readFrame() -> AudioFrame? {
        let count = AudioFrame.sampleRate * frameMilliseconds / 1000
        defer { sampleIndex += UInt64(count) }
        return AudioFrame(samples: [Int16](repeating: 0, count: count * channels), channels: channels, timestamp: sampleIndex)
    }
}

/// Uniform white noise at a given peak amplitude, from a seeded xorshift generator, so a
/// run is reproducible.
public struct WhiteNoiseSource: MediaSource, Sendable {
    /// Peak amplitude from 0 to 1 of full scale.
    public var amplitude: Double
    /// 1 (mono) or 2 (stereo, independent noise per channel).
    public var channels: Int
    /// Frame length in milliseconds.
    public var frameMilliseconds: Int
    private var state: UInt64
    private var sampleIndex: UInt64 = 0

    public init(amplitude: Double = 0.1, channels: Int = 1, frameMilliseconds: Int = 20, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) {
        self.amplitude = amplitude
        self.channels = channels
        self.frameMilliseconds = frameMilliseconds
        self.state = seed == 0 ? 1 : seed
    }

    public mutating func readFrame() -> AudioFrame? {
        let count = AudioFrame.sampleRate * frameMilliseconds / 1000
        let scale = amplitude * Double(Int16.max)
        var samples = [Int16](repeating: 0, count: count * channels)
        for i in samples.indices {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            let unit = Double(state >> 11) / Double(1 << 53) * 2 - 1
            samples[i] = Int16(scale * unit)
        }
        defer { sampleIndex += UInt64(count) }
        return AudioFrame(samples: samples, channels: channels, timestamp: sampleIndex)
    }
}

extension ToneGenerator: MediaSource {
    /// The next 20 ms of tone (see ``nextFrame(milliseconds:)`` for other lengths).
    public mutating func readFrame() -> AudioFrame? { nextFrame(milliseconds: 20) }
}
