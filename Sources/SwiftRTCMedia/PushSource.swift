import Synchronization

/// A source the application feeds frame by frame: custom video capture (screen sharing,
/// generated video) or synthesised audio (a voice agent's speech). Frames go through a
/// bounded buffer to one consumer, which takes them with ``frames(pacing:)``; with
/// ``Pacing/realTime`` a burst pushed at once (a whole synthesised sentence) plays out at its
/// timestamps.
///
/// When the buffer is full, ``Overflow`` decides:
/// - ``Overflow/dropOldest`` (live capture): ``push(_:)`` never waits; the oldest buffered
///   frame is dropped and counted in ``droppedFrames``, so the consumer always gets the
///   freshest frames and latency stays bounded.
/// - ``Overflow/backpressure`` (generated media that must not lose frames): ``send(_:)``
///   suspends the producer until there is room; ``push(_:)`` refuses the frame (returns false).
///
/// ``removeAll()`` drops every frame still waiting (a voice agent's queued speech when the
/// caller starts talking).
///
/// With ``Pacing/realTime`` the pacing starts over at a frame the consumer had to wait for
/// and that is late (the producer paused: speech after a silence plays at once, at its pace,
/// not in a burst to catch up) and at the first frame after ``removeAll()`` (the frames
/// dropped leave no gap to wait out).
///
/// Safe to use from any thread or task. Frames pushed after ``finish()`` are refused.
public final class PushSource<Frame: TimedFrame>: Sendable {
    /// What happens to a frame that arrives while the buffer is full.
    public enum Overflow: Sendable, Hashable {
        case dropOldest
        case backpressure
    }

    /// Frames the buffer holds.
    public let capacity: Int
    /// What a full buffer does with a new frame.
    public let overflow: Overflow

    /// What became of a frame given to ``send(_:generation:)``.
    package enum SendOutcome: Sendable, Hashable {
        /// Buffered or handed to the consumer.
        case taken
        /// Dropped by ``removeAll()`` (or sent with a generation from before one).
        case removed
        /// The source was finished.
        case finished
    }

    /// How the consumer paces a frame it takes.
    enum PacingStart {
        /// On the timeline of the frames before.
        case paced
        /// The consumer waited for it: paced, unless it is late (then the timeline starts at it).
        case ifLate
        /// The first after ``removeAll()``: the timeline starts at it.
        case over
    }

    private struct State: ~Copyable {
        var buffer: [Frame] = []
        var finished = false
        var dropped = 0
        var consumer: CheckedContinuation<(frame: Frame, start: PacingStart)?, Never>?
        var producers: [(frame: Frame, resume: CheckedContinuation<SendOutcome, Never>)] = []
        /// Frames senders announced (``reserve(_:generation:)``) and have not given yet.
        var reserved = 0
        /// Counts ``removeAll()`` calls.
        var generation = 0
        /// Set by ``removeAll()``: the consumer's next frame starts the pacing over.
        var restartPacing = false
    }

    private let state = Mutex(State())

    /// A source holding up to `capacity` frames, handling a full buffer as `overflow` says.
    public init(capacity: Int = 8, overflow: Overflow = .dropOldest) {
        precondition(capacity > 0, "PushSource needs room for at least one frame")
        self.capacity = capacity
        self.overflow = overflow
    }

    /// Frames dropped so far because the buffer was full (``Overflow/dropOldest``).
    public var droppedFrames: Int { state.withLock { $0.dropped } }

    /// Frames in the buffer, waiting for the consumer (not counting those of senders waiting
    /// for room).
    public var bufferedFrames: Int { state.withLock { $0.buffer.count } }

    /// Frames not played yet, counted in one step: buffered, of senders waiting for room, and
    /// announced by ``reserve(_:generation:)`` and not given yet. A frame being handed over
    /// counts once, never twice or not at all.
    package var queuedFrames: Int { state.withLock { $0.buffer.count + $0.producers.count + $0.reserved } }

    /// Announces `count` frames a sender will give with ``send(_:generation:)`` (each one's
    /// announcement ends when it is given); ignored when ``removeAll()`` was called since
    /// ``generation`` was `generation`.
    package func reserve(_ count: Int, generation: Int) {
        state.withLock { state in
            guard !state.finished, generation == state.generation else { return }
            state.reserved += count
        }
    }

    /// How many times ``removeAll()`` was called: a sender passes the value it read to
    /// ``send(_:generation:)`` so that none of its frames gets in after a later removal.
    package var generation: Int { state.withLock { $0.generation } }

    /// Offers a frame without waiting. Returns false if it was refused (finished, or full
    /// under ``Overflow/backpressure``).
    @discardableResult
    public func push(_ frame: Frame) -> Bool {
        state.withLock { state in
            guard !state.finished else { return false }
            if let consumer = state.consumer {
                state.consumer = nil
                defer { state.restartPacing = false }
                consumer.resume(returning: (frame, state.restartPacing ? .over : .ifLate))
                return true
            }
            if state.buffer.count >= capacity {
                guard overflow == .dropOldest else { return false }
                state.buffer.removeFirst()
                state.dropped += 1
            }
            state.buffer.append(frame)
            return true
        }
    }

    /// Delivers a frame, waiting for room under ``Overflow/backpressure``. Returns false if
    /// the source was finished before the frame could be taken.
    /// A frame dropped by ``removeAll()`` while it waited counts as delivered (true).
    @discardableResult
    public func send(_ frame: Frame) async -> Bool {
        await send(frame, generation: nil) != .finished
    }

    /// Delivers a frame as ``send(_:)`` does, unless ``removeAll()`` was called since
    /// ``generation`` was `generation` (then it is dropped at once: ``SendOutcome/removed``).
    package func send(_ frame: Frame, generation: Int?) async -> SendOutcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<SendOutcome, Never>) in
            let outcome: SendOutcome? = state.withLock { state in
                guard !state.finished else { return .finished }
                if let generation {
                    guard generation == state.generation else { return .removed }
                    // Given now: from here the frame counts as buffered, taken or waiting.
                    state.reserved = max(0, state.reserved - 1)
                }
                if let consumer = state.consumer {
                    state.consumer = nil
                    defer { state.restartPacing = false }
                    consumer.resume(returning: (frame, state.restartPacing ? .over : .ifLate))
                    return .taken
                }
                if state.buffer.count < capacity {
                    state.buffer.append(frame)
                    return .taken
                }
                if overflow == .dropOldest {
                    state.buffer.removeFirst()
                    state.dropped += 1
                    state.buffer.append(frame)
                    return .taken
                }
                state.producers.append((frame, continuation))
                return nil
            }
            if let outcome { continuation.resume(returning: outcome) }
        }
    }

    /// Drops every frame waiting for the consumer, at once: the buffered ones, those of
    /// senders waiting for room (their ``send(_:)`` returns) and those announced. The consumer's next frame starts
    /// the real-time pacing over. Returns how many frames were dropped.
    @discardableResult
    public func removeAll() -> Int {
        let (count, producers) = state.withLock { state in
            state.generation += 1
            state.restartPacing = true
            defer {
                state.buffer = []
                state.producers = []
                state.reserved = 0
            }
            return (state.buffer.count + state.producers.count + state.reserved, state.producers)
        }
        for producer in producers { producer.resume.resume(returning: .removed) }
        return count
    }

    /// Ends the stream: the consumer gets what is buffered, then the end; waiting producers
    /// are released with `false`.
    public func finish() {
        let (consumer, producers) = state.withLock { state in
            state.finished = true
            state.reserved = 0
            defer {
                state.consumer = nil
                state.producers = []
            }
            return (state.consumer, state.producers)
        }
        consumer?.resume(returning: nil)
        for producer in producers { producer.resume.resume(returning: .finished) }
    }

    /// The next frame, waiting for one, and how it is paced; `nil` once finished and drained.
    func take() async -> (frame: Frame, start: PacingStart)? {
        await withCheckedContinuation {
            (continuation: CheckedContinuation<(frame: Frame, start: PacingStart)?, Never>) in
            let ready: (frame: Frame, start: PacingStart)?? = state.withLock { state in
                if !state.buffer.isEmpty {
                    let frame = state.buffer.removeFirst()
                    if !state.producers.isEmpty {
                        let producer = state.producers.removeFirst()
                        state.buffer.append(producer.frame)
                        producer.resume.resume(returning: .taken)
                    }
                    defer { state.restartPacing = false }
                    return .some((frame, state.restartPacing ? .over : .paced))
                }
                if state.finished { return .some(nil) }
                state.consumer = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The pushed frames as an `AsyncSequence` for the one consumer, paced as asked.
    public func frames(pacing: Pacing) -> PushedFrames<Frame> { PushedFrames(source: self, pacing: pacing) }
}
