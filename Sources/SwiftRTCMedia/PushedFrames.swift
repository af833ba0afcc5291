import Synchronization

/// The consumer side of a ``PushSource``.
public struct PushedFrames<Frame: TimedFrame>: AsyncSequence, Sendable {
    /// The pushed frames.
    public typealias Element = Frame
    let source: PushSource<Frame>
    let pacing: Pacing

    /// An iterator with its own pacing clock, started by its first frame.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: source, pacer: Pacer(pacing: pacing)) }

    /// Pulls and paces one frame at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let source: PushSource<Frame>
        var pacer: Pacer

        /// The next pushed frame once it is due, `nil` after ``PushSource/finish()``.
        public mutating func next() async throws -> Frame? {
            guard let (frame, start) = await source.take() else { return nil }
            switch start {
            case .paced: try await pacer.wait(for: frame)
            case .ifLate: try await pacer.waitOrResync(for: frame)
            case .over:
                pacer.restart()
                try await pacer.wait(for: frame)
            }
            return frame
        }
    }
}
