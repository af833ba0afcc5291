import Synchronization

/// Hands each value to every current subscriber (each one an `AsyncStream` with its own
/// buffer, bounded by default), so several tasks can follow the same events; the call-session
/// layer uses it too (package access). With `current` set, a new
/// subscriber first gets the latest value (state sequences).
///
/// Two locks, so that no lock a stream's termination handler takes is held while a value is
/// handed over. Handing a value to a waiting consumer takes that consumer task's status lock;
/// cancelling the task holds the same lock while it runs the termination handler. With one
/// lock for both, a yield on one thread and a cancellation on another deadlock (seen in the
/// call-session tests). `delivery` keeps concurrent yields in one order for every subscriber;
/// `state` (the subscribers) is only ever held briefly, never around a yield.
package final class Broadcast<Element: Sendable>: Sendable {
    private struct State {
        var next = 0
        var continuations: [Int: AsyncStream<Element>.Continuation] = [:] {
            didSet { subscribers = Array(continuations.values) }
        }
        /// The continuations as an array, rebuilt when subscribers come or go: a yield takes
        /// it without allocating.
        var subscribers: [AsyncStream<Element>.Continuation] = []
        var latest: Element?
        var finished = false
    }

    private let state = Mutex(State())
    private let delivery = Mutex(())
    /// The subscribers' count, read without a lock: a value nobody follows and nobody will be
    /// replayed (a track's frames when no task takes them) costs one load.
    private let subscriberCount = Atomic<Int>(0)
    private let droppedCount = Atomic<Int>(0)
    private let replaysLatest: Bool
    private let buffering: AsyncStream<Element>.Continuation.BufferingPolicy

    /// - Parameters:
    ///   - replaysLatest: whether new subscribers start with the last value yielded.
    ///   - buffering: each subscriber's buffer (bounded: a slow consumer loses old values).
    package init(
        replaysLatest: Bool,
        initial: Element? = nil,
        buffering: AsyncStream<Element>.Continuation.BufferingPolicy = .bufferingNewest(64)
    ) {
        self.replaysLatest = replaysLatest
        self.buffering = buffering
        state.withLock { $0.latest = initial }
    }

    /// Values a subscriber's full buffer dropped (each subscriber's drops counted), so far.
    package var dropped: Int { droppedCount.load(ordering: .relaxed) }

    /// Whether anyone follows the values now.
    package var hasSubscribers: Bool { subscriberCount.load(ordering: .relaxed) > 0 }

    /// The last value yielded (or the initial one), kept when new subscribers get it first.
    package var latest: Element? { state.withLock { $0.latest } }

    /// A new stream of `past` (values the caller kept), then the values yielded from now on.
    package func subscribe(replaying past: [Element] = []) -> AsyncStream<Element> {
        subscription(replaying: past).stream
    }

    /// A new stream, as ``subscribe(replaying:)``, and `end`, which ends this stream alone:
    /// nothing more is handed to it, and its reader still gets what its buffer holds before
    /// the stream ends (cancelling the reader instead drops that).
    package func subscription(
        replaying past: [Element] = []
    ) -> (stream: AsyncStream<Element>, end: @Sendable () -> Void) {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: buffering)
        let id: Int? = delivery.withLock { _ in
            let (latest, id): (Element?, Int?) = state.withLock { state in
                guard !state.finished else { return (state.latest, nil) }
                let id = state.next
                state.next += 1
                state.continuations[id] = continuation
                subscriberCount.add(1, ordering: .relaxed)
                return (state.latest, id)
            }
            // No consumer waits on a new stream yet; later yields queue behind these.
            if replaysLatest, let latest { continuation.yield(latest) }
            for value in past { continuation.yield(value) }
            return id
        }
        guard let id else {
            continuation.finish()
            return (stream, {})
        }
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        return (
            stream,
            { [weak self] in
                // Out of the list under `delivery`, so no yield is under way to it, then ended:
                // the buffered values stay for the reader.
                self?.delivery.withLock { _ in self?.remove(id) }
                continuation.finish()
            }
        )
    }

    private func remove(_ id: Int) {
        state.withLock { state in
            if state.continuations.removeValue(forKey: id) != nil {
                subscriberCount.subtract(1, ordering: .relaxed)
            }
        }
    }

    /// Gives `value` to every subscriber. A value nobody follows is dropped at once, unless it
    /// is kept as ``latest`` for later subscribers (`replaysLatest`).
    package func yield(_ value: Element) {
        if !replaysLatest, subscriberCount.load(ordering: .relaxed) == 0 { return }
        delivery.withLock { _ in
            let continuations: [AsyncStream<Element>.Continuation]? = state.withLock { state in
                guard !state.finished else { return nil }
                if replaysLatest { state.latest = value }
                return state.subscribers
            }
            for continuation in continuations ?? [] {
                if case .dropped = continuation.yield(value) { droppedCount.add(1, ordering: .relaxed) }
            }
        }
    }

    /// Ends every stream; later subscribers get only the latest value.
    package func finish() {
        let continuations = state.withLock { state in
            state.finished = true
            subscriberCount.store(0, ordering: .relaxed)
            defer { state.continuations = [:] }
            return state.subscribers
        }
        for continuation in continuations { continuation.finish() }
    }
}
