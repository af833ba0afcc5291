/// How a source hands out frames.
public enum Pacing: Sendable, Hashable {
    /// Each frame is released when its presentation time comes (timestamps relative to the
    /// first frame, against a monotonic clock), as a live capture would produce it.
    case realTime
    /// Every frame at once, as fast as the consumer takes them (tests, transcoding, files).
    case asFastAsPossible
}

/// The one pacing mechanism shared by all sources: an `AsyncSequence` over a ``MediaSource``
/// that, in ``Pacing/realTime``, sleeps until each frame's timestamp is due. Timing follows the
/// frames' own timestamps (wrapping RTP timestamps are unwrapped), so gaps and irregular frame
/// durations in files play as recorded. A consumer that falls behind is not waited for: late
/// frames are released at once and the schedule is not shifted.
public struct PacedFrames<Source: MediaSource>: AsyncSequence {
    public typealias Element = Source.Frame

    private let source: Source
    private let pacing: Pacing

    public init(source: Source, pacing: Pacing) {
        self.source = source
        self.pacing = pacing
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: source, pacing: pacing) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        private var source: Source
        private let pacing: Pacing
        private var start: ContinuousClock.Instant?
        private var lastTimestamp: UInt64 = 0
        /// Media time since the first frame, in clock ticks (unwrapped).
        private var elapsedTicks: Int64 = 0

        init(source: Source, pacing: Pacing) {
            self.source = source
            self.pacing = pacing
        }

        public mutating func next() async throws -> Element? {
            guard let frame = try source.readFrame() else { return nil }
            guard pacing == .realTime else { return frame }
            let now = ContinuousClock.now
            guard let start else {
                start = now
                lastTimestamp = frame.mediaTimestamp
                return frame
            }
            elapsedTicks += Self.signedDelta(from: lastTimestamp, to: frame.mediaTimestamp, bits: Element.timestampBits)
            lastTimestamp = frame.mediaTimestamp
            let rate = Int64(Swift.max(1, frame.clockRate))
            let due = start + .seconds(elapsedTicks / rate) + .nanoseconds((elapsedTicks % rate) * 1_000_000_000 / rate)
            if due > now { try await Task.sleep(until: due, clock: .continuous) }
            return frame
        }

        /// `to - from` as a signed distance on a clock `bits` wide (RTP timestamps wrap at 2^32).
        static func signedDelta(from: UInt64, to: UInt64, bits: Int) -> Int64 {
            let difference = to &- from
            guard bits < 64 else { return Int64(bitPattern: difference) }
            let shift = UInt64(64 - bits)
            return Int64(bitPattern: difference << shift) >> Int64(shift)
        }
    }
}
