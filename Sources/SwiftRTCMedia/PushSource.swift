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

    private struct State: ~Copyable {
        var buffer: [Frame] = []
        var finished = false
        var dropped = 0
        var consumer: CheckedContinuation<Frame?, Never>?
        var producers: [(frame: Frame, resume: CheckedContinuation<Bool, Never>)] = []
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

    /// Offers a frame without waiting. Returns false if it was refused (finished, or full
    /// under ``Overflow/backpressure``).
    @discardableResult
    public func push(_ frame: Frame) -> Bool {
        state.withLock { state in
            guard !state.finished else { return false }
            if let consumer = state.consumer {
                state.consumer = nil
                consumer.resume(returning: frame)
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
    @discardableResult
    public func send(_ frame: Frame) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let accepted: Bool? = state.withLock { state in
                guard !state.finished else { return false }
                if let consumer = state.consumer {
                    state.consumer = nil
                    consumer.resume(returning: frame)
                    return true
                }
                if state.buffer.count < capacity {
                    state.buffer.append(frame)
                    return true
                }
                if overflow == .dropOldest {
                    state.buffer.removeFirst()
                    state.dropped += 1
                    state.buffer.append(frame)
                    return true
                }
                state.producers.append((frame, continuation))
                return nil
            }
            if let accepted { continuation.resume(returning: accepted) }
        }
    }

    /// Ends the stream: the consumer gets what is buffered, then the end; waiting producers
    /// are released with `false`.
    public func finish() {
        let (consumer, producers) = state.withLock { state in
            state.finished = true
            defer {
                state.consumer = nil
                state.producers = []
            }
            return (state.consumer, state.producers)
        }
        consumer?.resume(returning: nil)
        for producer in producers { producer.resume.resume(returning: false) }
    }

    /// The next frame, waiting for one; `nil` once finished and drained.
    func take() async -> Frame? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Frame?, Never>) in
            let ready: Frame?? = state.withLock { state in
                if !state.buffer.isEmpty {
                    let frame = state.buffer.removeFirst()
                    if !state.producers.isEmpty {
                        let producer = state.producers.removeFirst()
                        state.buffer.append(producer.frame)
                        producer.resume.resume(returning: true)
                    }
                    return .some(frame)
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
