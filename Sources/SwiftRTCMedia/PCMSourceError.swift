import SwiftRTCCodecs
import Synchronization

/// Why a ``PCMSource`` refused samples.
public enum PCMSourceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The sample count is not a whole number of channel groups (`count` samples, `channels` channels).
    case partialSampleFrame(count: Int, channels: Int)
    /// ``PCMSource/finish()`` was called, or the track playing it stopped.
    case finished

    public var description: String {
        switch self {
        case let .partialSampleFrame(count, channels): "\(count) samples are not whole frames of \(channels) channels"
        case .finished: "the PCM source is finished"
        }
    }
}
