import SwiftRTCCodecs

/// Converts whole PCM files to the 48 kHz that ``AudioFrame`` holds.
enum PCMFileResampling {
    /// A whole file's interleaved PCM at `rate` converted to 48 kHz (same channels) with
    /// ``AudioResampler``: the input's length at the new rate, with the same timing.
    static func to48k(
        _ samples: [Int16],
        channels: Int,
        from rate: Int,
        format: String
    ) throws(MediaFileError) -> [Int16] {
        guard rate != AudioFrame.sampleRate else { return samples }
        let resampler: AudioResampler
        do {
            resampler = try AudioResampler(
                from: PCMFormat(sampleRate: rate, channels: channels),
                to: PCMFormat(sampleRate: AudioFrame.sampleRate, channels: channels)
            )
        } catch {
            throw .invalidField(
                format: format,
                offset: 0,
                field: "sample rate (convertible to 48 kHz)",
                value: "\(rate)"
            )
        }
        let output = resampler.convert(samples) + resampler.flush()
        let wanted = samples.count / channels * AudioFrame.sampleRate / rate * channels
        return Array(output.prefix(wanted))
    }
}
