import SwiftRTCCodecs

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

    /// Noise of peak `amplitude`, reproducible for a given `seed`.
    public init(
        amplitude: Double = 0.1,
        channels: Int = 1,
        frameMilliseconds: Int = 20,
        seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    ) {
        self.amplitude = amplitude
        self.channels = channels
        self.frameMilliseconds = frameMilliseconds
        self.state = seed == 0 ? 1 : seed
    }

    /// The next frame (the source never ends).
    public mutating func readFrame() -> AudioFrame? {
        let count = AudioFrame.sampleRate * frameMilliseconds / 1000
        let scale = amplitude * Double(Int16.max)
        var samples = [Int16](repeating: 0, count: count * channels)
        for i in samples.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let unit = Double(state >> 11) / Double(1 << 53) * 2 - 1
            samples[i] = Int16(scale * unit)
        }
        defer { sampleIndex += UInt64(count) }
        return AudioFrame(samples: samples, channels: channels, timestamp: sampleIndex)
    }
}
