import SwiftRTCSDP

/// W3C `RTCAudioSourceStats` / `RTCVideoSourceStats` (`media-source`): what the sender's
/// track gave it.
struct MediaSourceStats: W3CStats {
    var id: String
    var kind: MediaKind
    var trackIdentifier: String
    /// Video: the captured size, frames, and frames per second over the last interval.
    var width = 0
    var height = 0
    var frames: Int64 = 0
    var framesPerSecond: Double?
    /// Audio: the level of the last frame, and pushed frames that are no audio (channel
    /// count not 1 or 2, samples not whole channel groups), dropped (not a W3C member).
    var audioLevel = 0.0
    var framesRejected: Int64 = 0

    var entry: StatsReport.Stats {
        var stats = StatsReport.Stats(id: id, type: .mediaSource)
        stats["kind"] = .string(kind.rawValue)
        stats["trackIdentifier"] = .string(trackIdentifier)
        if kind == .video {
            stats["width"] = .int(Int64(width))
            stats["height"] = .int(Int64(height))
            stats["frames"] = .int(frames)
            stats["framesPerSecond"] = framesPerSecond.map { .double($0) }
        } else {
            stats["audioLevel"] = .double(audioLevel)
            stats["framesRejected"] = .int(framesRejected)
        }
        return stats
    }
}
