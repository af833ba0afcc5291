import CSWResample

/// Why an ``AudioResampler`` cannot be made.
public enum AudioResamplerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The rate is outside ``AudioResampler/supportedRates`` or the channel count is not 1 or 2.
    case unsupportedFormat(PCMFormat)
    /// libswresample refused (`operation` returned `code`, an FFmpeg error).
    case library(operation: String, code: Int32)

    public var description: String {
        switch self {
        case .unsupportedFormat(let format):
            "unsupported PCM format: \(format.sampleRate) Hz, \(format.channels) channels (rates \(AudioResampler.supportedRates), 1 or 2 channels)"
        case let .library(operation, code): "libswresample: \(operation) failed (\(code))"
        }
    }
}
