import SwiftRTCCodecs
import Synchronization

/// A piece of PCM a track hands out (``MediaStreamTrack/pcm(_:)``).
public struct PCMChunk: Sendable {
    /// Interleaved 16-bit samples.
    public var samples: [Int16]
    /// Their rate and channels.
    public var format: PCMFormat
    /// Samples per channel before this chunk in the stream (its time is `position / rate`).
    public var position: UInt64

    /// A chunk of `samples` in `format` at `position`.
    public init(samples: [Int16], format: PCMFormat, position: UInt64) {
        self.samples = samples
        self.format = format
        self.position = position
    }
}
