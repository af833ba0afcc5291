// Conversions a bot needs between the forms PCM arrives in: Float PCM (what synthesisers and
// audio APIs produce) and channel layouts (a mono microphone into a stereo Opus stream, or
// the reverse). AudioFrame stores Int16, the one representation Opus and WAV take directly.

extension AudioFrame {
    /// A frame from Float PCM in -1...1 (values outside are clipped), interleaved.
    public init(floatSamples: [Float], channels: Int, timestamp: UInt64) {
        var samples = [Int16](repeating: 0, count: floatSamples.count)
        samples.withUnsafeMutableBufferPointer { out in
            floatSamples.withUnsafeBufferPointer { input in
                AudioFrame.convert(input, to: out)
            }
        }
        self.init(samples: samples, channels: channels, timestamp: timestamp)
    }

    /// The samples as Float PCM in -1..<1 (Int16 divided by 32768), interleaved.
    public var floatSamples: [Float] {
        var out = [Float](repeating: 0, count: samples.count)
        out.withUnsafeMutableBufferPointer { out in
            samples.withUnsafeBufferPointer { input in
                AudioFrame.convert(input, to: out)
            }
        }
        return out
    }

    /// Converts Int16 PCM to Float PCM (x / 32768); `output` holds at least `input.count`.
    public static func convert(_ input: UnsafeBufferPointer<Int16>, to output: UnsafeMutableBufferPointer<Float>) {
        let count = min(input.count, output.count)
        for i in 0..<count { output[i] = Float(input[i]) * (1 / 32768) }
    }

    /// Converts Float PCM to Int16 PCM (x * 32768, rounded, clipped to the Int16 range);
    /// `output` holds at least `input.count`.
    public static func convert(_ input: UnsafeBufferPointer<Float>, to output: UnsafeMutableBufferPointer<Int16>) {
        let count = min(input.count, output.count)
        for i in 0..<count {
            let scaled = (input[i] * 32768).rounded()
            // Comparisons first: NaN fails both and becomes 0.
            output[i] = scaled >= 32767 ? .max : scaled <= -32768 ? .min : scaled == scaled ? Int16(scaled) : 0
        }
    }

    /// The same audio with `channels` channels: mono is copied into both stereo channels;
    /// stereo is averaged into mono. Returns the frame unchanged if it already has them.
    public func converted(toChannels target: Int) -> AudioFrame {
        precondition(target == 1 || target == 2, "AudioFrame holds mono or stereo audio")
        if target == channels { return self }
        let frames = samplesPerChannel
        var out = [Int16](repeating: 0, count: frames * target)
        if target == 2 {
            for i in 0..<frames {
                out[2 * i] = samples[i]
                out[2 * i + 1] = samples[i]
            }
        } else {
            for i in 0..<frames {
                // Average, rounding toward negative infinity; the sum of two Int16 fits in Int32.
                out[i] = Int16((Int32(samples[2 * i]) + Int32(samples[2 * i + 1])) >> 1)
            }
        }
        return AudioFrame(samples: out, channels: target, timestamp: timestamp)
    }
}
