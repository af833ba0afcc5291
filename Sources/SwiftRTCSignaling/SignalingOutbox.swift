import Synchronization

/// Where a ``WebSocketSignalingChannel``'s outgoing messages go: the writer of the connection
/// that is logged in, or, while the channel reconnects, a queue of at most `limit` messages
/// that the next welcomed connection writes first, in order.
final class SignalingOutbox: Sendable {
    /// What a connection's writer sends next.
    enum Item: Sendable {
        case text(String)
        case close
    }

    enum SendResult: Sendable {
        case sent
        case queueFull
        case closed
    }

    private struct State {
        var writer: AsyncStream<Item>.Continuation?
        var queued: [String] = []
        var closed = false
    }

    /// The most messages queued while reconnecting (and held by a connection's writer).
    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) { self.limit = limit }

    /// A writer queue for a new connection, bounded like the outbox (a few more for `hello`
    /// and `close`).
    func makeWriterQueue() -> (AsyncStream<Item>, AsyncStream<Item>.Continuation) {
        AsyncStream.makeStream(of: Item.self, bufferingPolicy: .bufferingOldest(limit + 4))
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// Hands `text` to the live connection, or queues it while there is none.
    func send(_ text: String) -> SendResult {
        state.withLock { state in
            if state.closed { return .closed }
            if let writer = state.writer {
                switch writer.yield(.text(text)) {
                case .enqueued: return .sent
                case .dropped: return .queueFull
                case .terminated: state.writer = nil  // The connection ended: queue for the next one.
                @unknown default: state.writer = nil
                }
            }
            guard state.queued.count < limit else { return .queueFull }
            state.queued.append(text)
            return .sent
        }
    }

    /// A connection was welcomed: the queued messages go to its writer first, then every
    /// later one. False (nothing written) once the outbox is closed.
    func attach(_ writer: AsyncStream<Item>.Continuation) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            for text in state.queued { writer.yield(.text(text)) }
            state.queued = []
            state.writer = writer
            return true
        }
    }

    /// The connection ended: later messages are queued until the next one is welcomed.
    func detach() {
        state.withLock { $0.writer = nil }
    }

    /// Closes the outbox (later sends fail); returns the live connection's writer, if any.
    @discardableResult
    func close() -> AsyncStream<Item>.Continuation? {
        state.withLock { state in
            state.closed = true
            state.queued = []
            defer { state.writer = nil }
            return state.writer
        }
    }
}
