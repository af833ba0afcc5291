import SwiftRTCCodecs

/// Converts whole PCM files to the 48 kHz that ``AudioFrame`` holds.
enum PCMFileResampling {
    /// A whole file's interleaved PCM at `rate` converted to 48 kHz with the codec layer's
    /// ``AudioResampler``, its filter delay removed so the audio keeps its timing.
    static func to48k(_ samples: [Int16], channels: Int, from rate: Int, format: String) throws(MediaFileError) -> [Int16] {
        guard rate != AudioFrame.sampleRate else { return samples }
        var resampler: AudioResampler
        do {
            resampler = try AudioResampler(inputRate: rate, channels: channels)
        } catch {
            throw .invalidField(format: format, offset: 0, field: "sample rate (convertible to 48 kHz)", value: "\(rate)")
        }
        let delay = AudioResampler.tapsPerPhase / 2
        let output = resampler.resample(samples + [Int16](repeating: 0, count: delay * channels)).samples
        let skip = min(output.count, delay * AudioFrame.sampleRate / rate * channels)
        let wanted = samples.count / channels * AudioFrame.sampleRate / rate * channels
        return Array(output[skip..<min(output.count, skip + wanted)])
    }
}
