import SwiftRTCCodecs
import SwiftRTCCore

/// Anything that produces media frames one at a time: generators (tone, noise, test pattern),
/// file readers (WAV, Y4M, IVF, Ogg Opus) and push sources. `readFrame()` returns `nil` at the
/// end of a finite source. Wrap a source in ``PacedFrames`` (``frames(pacing:)``) to consume it
/// as an `AsyncSequence`, in real time or as fast as possible.
public protocol MediaSource {
    associatedtype Frame: TimedFrame
    /// The next frame, or `nil` when the source has ended.
    mutating func readFrame() throws -> Frame?
}

extension MediaSource {
    /// The source's frames as an `AsyncSequence`, paced as asked.
    public func frames(pacing: Pacing) -> PacedFrames<Self> { PacedFrames(source: self, pacing: pacing) }
}
