import SwiftRTCCodecs

/// Converts whole interleaved 16-bit PCM buffers from a file's rate to 48 kHz by linear
/// interpolation, so WAV and raw PCM files at 8, 16, 44.1 kHz (or any rate) play as
/// ``AudioFrame``s. Good enough for speech and test tones; the codec layer's resampler is the
/// one for live streams.
enum LinearResampler {
    static func to48k(_ samples: [Int16], channels: Int, from rate: Int) -> [Int16] {
        guard rate != AudioFrame.sampleRate, rate > 0, channels > 0 else { return samples }
        let inputFrames = samples.count / channels
        guard inputFrames > 0 else { return [] }
        let outputFrames = inputFrames * AudioFrame.sampleRate / rate
        var output = [Int16](repeating: 0, count: outputFrames * channels)
        let step = Double(rate) / Double(AudioFrame.sampleRate)
        for frame in 0..<outputFrames {
            let position = Double(frame) * step
            let index = min(Int(position), inputFrames - 1)
            let next = min(index + 1, inputFrames - 1)
            let fraction = position - Double(index)
            for channel in 0..<channels {
                let a = Double(samples[index * channels + channel]), b = Double(samples[next * channels + channel])
                output[frame * channels + channel] = Int16((a + (b - a) * fraction).rounded())
            }
        }
        return output
    }
}
