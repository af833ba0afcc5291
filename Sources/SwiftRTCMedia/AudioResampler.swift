import CSWResample

/// Converts interleaved 16-bit PCM from one rate and channel count to another (8 kHz for a
/// phone line, 16 kHz for speech-to-text, 44.1 kHz files, SwiftRTC's 48 kHz...), with FFmpeg's
/// libswresample, the FFmpeg already linked for WebM (Debian `libswresample-dev`).
///
/// It keeps its filter state between calls, so audio fed in any chunking comes out the same and
/// without seams; ``flush()`` returns what the filter still holds at the end. Output is aligned
/// with the input: its first sample is the input's first, not a filter delay later. Not
/// thread-safe: one resampler per stream, used from one place at a time.
///
/// ```swift
/// let resampler = try AudioResampler(from: PCMFormat(sampleRate: 48_000, channels: 2),
///                                    to: PCMFormat(sampleRate: 16_000, channels: 1))
/// let speech = resampler.convert(frame.samples) + resampler.flush()
/// ```
public final class AudioResampler {
    /// The sample rates accepted on either side, in hertz.
    public static let supportedRates = 8_000...192_000

    /// The format of what ``convert(_:)`` takes.
    public let input: PCMFormat
    /// The format of what it returns.
    public let output: PCMFormat
    private var context: OpaquePointer?
    /// Output samples per channel produced so far (the next chunk's position in the output).
    public private(set) var outputPosition: UInt64 = 0

    /// A resampler from `input` to `output`.
    public init(from input: PCMFormat, to output: PCMFormat) throws(AudioResamplerError) {
        for format in [input, output]
        where !Self.supportedRates.contains(format.sampleRate) || !(1...2).contains(format.channels) {
            throw .unsupportedFormat(format)
        }
        self.input = input
        self.output = output
        var inLayout = AVChannelLayout(), outLayout = AVChannelLayout()
        av_channel_layout_default(&inLayout, Int32(input.channels))
        av_channel_layout_default(&outLayout, Int32(output.channels))
        defer {
            av_channel_layout_uninit(&inLayout)
            av_channel_layout_uninit(&outLayout)
        }
        var context: OpaquePointer?
        let status = swr_alloc_set_opts2(
            &context,
            &outLayout,
            AV_SAMPLE_FMT_S16,
            Int32(output.sampleRate),
            &inLayout,
            AV_SAMPLE_FMT_S16,
            Int32(input.sampleRate),
            0,
            nil
        )
        guard status >= 0, let context else { throw .library(operation: "swr_alloc_set_opts2", code: status) }
        self.context = context
        let initialised = swr_init(context)
        guard initialised >= 0 else {
            swr_free(&self.context)
            throw .library(operation: "swr_init", code: initialised)
        }
    }

    deinit { swr_free(&context) }

    /// Converts `samples` (interleaved, whole channel groups of ``input``) and returns the
    /// output ready so far.
    public func convert(_ samples: [Int16]) -> [Int16] {
        samples.withUnsafeBufferPointer { convert($0) }
    }

    /// Converts `samples` (interleaved, whole channel groups of ``input``).
    public func convert(_ samples: UnsafeBufferPointer<Int16>) -> [Int16] {
        run(input: samples.baseAddress, count: samples.count / input.channels)
    }

    /// What the filter still holds, once the input has ended.
    public func flush() -> [Int16] { run(input: nil, count: 0) }

    private func run(input samples: UnsafePointer<Int16>?, count: Int) -> [Int16] {
        guard let context else { return [] }
        let capacity = Int(swr_get_out_samples(context, Int32(count)))
        guard capacity > 0 else { return [] }
        var produced = 0
        let out = [Int16](unsafeUninitializedCapacity: capacity * output.channels) { buffer, initialized in
            var outPlane = UnsafeMutableRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: UInt8.self)
            var inPlane = UnsafeRawPointer(samples)?.assumingMemoryBound(to: UInt8.self)
            produced = withUnsafeMutablePointer(to: &outPlane) { outPlanes in
                withUnsafeMutablePointer(to: &inPlane) { inPlanes in
                    Int(swr_convert(context, outPlanes, Int32(capacity), samples == nil ? nil : inPlanes, Int32(count)))
                }
            }
            produced = max(0, produced)
            initialized = produced * output.channels
        }
        outputPosition += UInt64(produced)
        return out
    }
}
