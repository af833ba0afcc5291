/// A ``MediaSource``'s frames as an `AsyncSequence`, paced by a ``Pacer``.
public struct PacedFrames<Source: MediaSource>: AsyncSequence {
    /// The source's frames.
    public typealias Element = Source.Frame

    private let source: Source
    private let pacing: Pacing

    /// Wraps `source`; frames are read from it as the sequence is iterated.
    public init(source: Source, pacing: Pacing) {
        self.source = source
        self.pacing = pacing
    }

    /// An iterator with its own pacing clock, started by its first frame.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: source, pacer: Pacer(pacing: pacing)) }

    /// Pulls and paces one frame at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var source: Source
        private var pacer: Pacer

        init(source: Source, pacer: Pacer) {
            self.source = source
            self.pacer = pacer
        }

        /// The next frame once it is due, `nil` when the source ends.
        public mutating func next() async throws -> Element? {
            guard let frame = try source.readFrame() else { return nil }
            try await pacer.wait(for: frame)
            return frame
        }
    }
}
