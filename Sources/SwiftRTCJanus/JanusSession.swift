import Foundation
import Logging
import SwiftRTCSignaling
import Synchronization

/// A session with a Janus server over its WebSocket API (`janus-protocol`): `create`,
/// `attach`, `keepalive`, `claim`, `destroy`, and the requests of each plugin handle
/// (``JanusHandle``).
///
/// The session keeps itself alive (a `keepalive` every ``Configuration/keepaliveInterval``).
/// When the WebSocket drops it opens a new one and `claim`s the session (Janus keeps it for
/// its `reclaim_session_timeout`): ``events`` says ``JanusSessionEvent/connectionLost(reason:)``,
/// then ``JanusSessionEvent/reconnected`` or, when the session is gone (Janus restarted),
/// ``JanusSessionEvent/closed(reason:)``, after which a new session must be made.
///
/// ```swift
/// let session = try await JanusSession.connect(.init(url: URL(string: "ws://127.0.0.1:8188")!))
/// let handle = try await session.attach(plugin: "janus.plugin.videoroom")
/// let reply = try await handle.request(["request": "exists", "room": 1234])
/// ```
public final class JanusSession: Sendable {
    /// Where and how to reach Janus.
    public struct Configuration: Sendable {
        /// `ws://` or `wss://` URL of Janus's WebSocket transport.
        public var url: URL
        /// Whom a `wss://` server's certificate must chain to.
        public var trust: TLSTrust = .system
        /// The most a request waits for its answer.
        public var requestTimeout: Duration = .seconds(10)
        /// Time between two keepalives (Janus ends a silent session after its `session_timeout`,
        /// 60 s by default).
        public var keepaliveInterval: Duration = .seconds(25)
        /// How long a dropped connection is tried again before the session counts as closed.
        public var reconnectFor: Duration = .seconds(15)
        /// Where connection events and dropped messages are logged.
        public var logger = Logger(label: "swiftrtc.janus")

        /// Janus at `url`, with the default timeouts.
        public init(url: URL) { self.url = url }
    }

    /// Requests waiting for an answer at once, at most.
    public static let maxPendingRequests = 256
    /// Plugin handles of one session, at most.
    public static let maxHandles = 256
    /// Events kept for a reader that is behind (per handle and for the session); older ones
    /// are dropped and counted (``eventsDropped``).
    public static let maxBufferedEvents = 1024

    /// The session's id at Janus.
    public let id: Int64
    /// What happens to the connection.
    public let events: AsyncStream<JanusSessionEvent>

    let configuration: Configuration
    private let eventSink: AsyncStream<JanusSessionEvent>.Continuation
    let state = Mutex(State())
    private let supervisor = Mutex<Task<Void, Never>?>(nil)

    struct Pending {
        var continuation: CheckedContinuation<JanusMessage, any Error>
        /// Whether the answer is an `event` after an `ack` (a plugin message), not the `ack`.
        var awaitsEvent: Bool
    }

    struct State {
        var link: JanusLink?
        var pending: [String: Pending] = [:]
        var handles: [Int64: AsyncStream<JanusHandleEvent>.Continuation] = [:]
        var closed = false
        var eventsDropped = 0
    }

    private init(id: Int64, configuration: Configuration) {
        self.id = id
        self.configuration = configuration
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(Self.maxBufferedEvents))
    }

    /// Opens the WebSocket and creates a session.
    public static func connect(_ configuration: Configuration) async throws(JanusError) -> JanusSession {
        let router = Router()
        let link = try await router.open(configuration)
        // `create` before the session exists: its answer comes through a bootstrap session.
        let bootstrap = JanusSession(id: 0, configuration: configuration)
        bootstrap.state.withLock { $0.link = link }
        router.session.withLock { $0 = bootstrap }
        let created: JanusMessage
        do {
            created = try await bootstrap.send(["janus": "create"], awaitsEvent: false, name: "create")
        } catch {
            await link.close()
            throw error
        }
        guard let id = created.createdID else {
            await link.close()
            throw .malformedReply("create answered without data.id")
        }
        let session = JanusSession(id: id, configuration: configuration)
        session.state.withLock { $0.link = link }
        router.session.withLock { $0 = session }
        bootstrap.state.withLock { $0.link = nil }
        session.supervise(link: link, router: router)
        configuration.logger.info("janus: session \(id) at \(configuration.url.absoluteString)")
        return session
    }

    /// Attaches a plugin (`janus.plugin.videoroom`...) to the session.
    public func attach(plugin: String) async throws(JanusError) -> JanusHandle {
        guard (state.withLock { $0.handles.count }) < Self.maxHandles else { throw .tooManyHandles }
        let reply = try await send(["janus": "attach", "plugin": .string(plugin)], awaitsEvent: false, name: "attach")
        guard let handleID = reply.createdID else { throw .malformedReply("attach answered without data.id") }
        let (stream, sink) = AsyncStream.makeStream(
            of: JanusHandleEvent.self,
            bufferingPolicy: .bufferingNewest(Self.maxBufferedEvents)
        )
        let added = state.withLock { state -> Bool in
            guard !state.closed, state.handles.count < Self.maxHandles else { return false }
            state.handles[handleID] = sink
            return true
        }
        guard added else {
            sink.finish()
            throw state.withLock { $0.closed } ? .sessionClosed : .tooManyHandles
        }
        return JanusHandle(id: handleID, plugin: plugin, session: self, events: stream)
    }

    /// Destroys the session at Janus and closes the WebSocket; its handles end.
    public func destroy() async {
        _ = try? await send(["janus": "destroy"], awaitsEvent: false, name: "destroy")
        await markClosed(reason: "destroyed")?.close()
    }

    /// Closes the WebSocket as a network failure would end it (tests of the reconnection).
    package func dropConnection() { state.withLock { $0.link }?.finish() }

    /// Events dropped because a reader was behind by more than ``maxBufferedEvents``.
    public var eventsDropped: Int { state.withLock { $0.eventsDropped } }

    // MARK: Requests

    /// Sends `request` (with this session's id and a new transaction) and waits for its answer:
    /// `success`, or with `awaitsEvent` the `event` that follows the `ack`; `error` throws.
    func send(_ request: JanusJSON, awaitsEvent: Bool, name: String) async throws(JanusError) -> JanusMessage {
        guard case .object(var members) = request else { throw .malformedReply("request is not an object") }
        let transaction = Self.newTransaction()
        members["transaction"] = .string(transaction)
        if id != 0 { members["session_id"] = .number(Double(id)) }
        let text = String(decoding: JanusJSON.object(members).jsonData, as: UTF8.self)
        let timeout = configuration.requestTimeout
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.fail(transaction, with: .timedOut(request: name))
        }
        defer { timer.cancel() }
        do {
            return try await withCheckedThrowingContinuation { continuation in
                let refusal = state.withLock { state -> JanusError? in
                    if state.closed { return .sessionClosed }
                    guard let link = state.link else { return .connectionLost }
                    guard state.pending.count < Self.maxPendingRequests else { return .tooManyPendingRequests }
                    state.pending[transaction] = Pending(continuation: continuation, awaitsEvent: awaitsEvent)
                    link.send(text)
                    return nil
                }
                if let refusal { continuation.resume(throwing: refusal) }
            }
        } catch let error as JanusError {
            throw error
        } catch {
            throw .connectionLost
        }
    }

    /// Ends the request `transaction` with `error`, if it still waits.
    private func fail(_ transaction: String, with error: JanusError) {
        state.withLock { $0.pending.removeValue(forKey: transaction) }?.continuation.resume(throwing: error)
    }

    private static func newTransaction() -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
        return String(decoding: (0..<12).map { _ in letters.randomElement()! }, as: UTF8.self)
    }

    // MARK: From Janus

    /// One text message from Janus.
    package func receive(_ text: String) {
        guard let message = JanusMessage(text: text) else {
            configuration.logger.warning("janus: unreadable message dropped (\(text.utf8.count) bytes)")
            return
        }
        if let transaction = message.transaction, answer(message, transaction: transaction) { return }
        guard let sender = message.sender else {
            if message.kind == "timeout" { closed(reason: "Janus timed the session out") }
            return
        }
        let event: JanusHandleEvent?
        switch message.kind {
        case "event":
            event = message.pluginData.map { .plugin(data: $0, jsep: message.jsep) }
        case "webrtcup": event = .webRTCUp
        case "media":
            event = message.mediaType.map { .media(type: $0, mid: message.mid, receiving: message.receiving ?? false) }
        case "slowlink": event = .slowLink(mid: message.mid, uplink: message.uplink ?? false, lost: message.lost ?? 0)
        case "hangup": event = .hangup(reason: message.reason ?? "")
        case "trickle": event = message.trickleCompleted ? .trickle(nil) : message.candidate.map { .trickle($0) }
        case "detached": event = .detached
        default: event = nil
        }
        guard let event else { return }
        let sink = state.withLock { state in
            event == .detached ? state.handles.removeValue(forKey: sender) : state.handles[sender]
        }
        guard let sink else { return }
        if case .dropped = sink.yield(event) { state.withLock { $0.eventsDropped += 1 } }
        if event == .detached { sink.finish() }
    }

    /// Hands `message` to the request waiting for it; false when none waits.
    private func answer(_ message: JanusMessage, transaction: String) -> Bool {
        let waiting = state.withLock { state -> Pending? in
            guard let pending = state.pending[transaction] else { return nil }
            if message.kind == "ack", pending.awaitsEvent { return nil }
            return state.pending.removeValue(forKey: transaction)
        }
        guard let waiting else {
            // An ack that announces the event to come, or an answer nobody waits for any more.
            return message.kind == "ack" || message.kind == "success" || message.kind == "error"
        }
        if let error = message.error, message.kind == "error" {
            waiting.continuation.resume(throwing: JanusError.janus(code: error.code, reason: error.reason))
        } else if let data = message.pluginData, let code = data["error_code"]?.integer {
            let reason = String((data["error"]?.string ?? "").prefix(JanusMessage.maxString))
            waiting.continuation.resume(throwing: JanusError.plugin(code: Int(clamping: code), reason: reason))
        } else {
            waiting.continuation.resume(returning: message)
        }
        return true
    }

    // MARK: Connection

    /// Routes a link's messages to the session that owns it now.
    final class Router: Sendable {
        let session = Mutex<JanusSession?>(nil)
        func deliver(_ text: String) { session.withLock { $0 }?.receive(text) }

        /// Opens a WebSocket to Janus whose messages come here.
        func open(_ configuration: Configuration) async throws(JanusError) -> JanusLink {
            try await JanusLink.open(
                url: configuration.url,
                trust: configuration.trust,
                timeout: configuration.requestTimeout,
                logger: configuration.logger,
                deliver: { [self] in deliver($0) }
            )
        }
    }

    /// Keeps the session alive and its connection up until it closes. Holds the session
    /// weakly: one its owner let go of ends (see `deinit`).
    private func supervise(link: JanusLink, router: Router) {
        let interval = configuration.keepaliveInterval
        let task = Task { [weak self] in
            var link = link
            while !Task.isCancelled {
                let ended = await Self.keepAlive(link: link, every: interval) { [weak self] in
                    guard let self else { return false }
                    _ = try? await self.send(["janus": "keepalive"], awaitsEvent: false, name: "keepalive")
                    return true
                }
                guard let session = self, !session.isClosed else { return }
                session.lost(link: link, reason: ended)
                guard let next = await session.reconnect(router: router) else { return }
                link = next
            }
        }
        supervisor.withLock { $0 = task }
    }

    deinit {
        supervisor.withLock { $0 }?.cancel()
        state.withLock { $0.link }?.finish()
    }

    /// Whether the session ended (destroyed, timed out, or not claimed back).
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Calls `keepalive` every `interval` until `link` ends (or it says the session is gone);
    /// why the link ended.
    private static func keepAlive(
        link: JanusLink,
        every interval: Duration,
        keepalive: @escaping @Sendable () async -> Bool
    ) async -> String {
        await withTaskGroup(of: String?.self) { group in
            group.addTask { await link.ended }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    guard !Task.isCancelled, await keepalive() else { return nil }
                }
                return nil
            }
            var reason = "the connection was lost"
            for await result in group {
                if let result {
                    reason = result
                    break
                }
            }
            group.cancelAll()
            return reason
        }
    }

    /// The link dropped: waiting requests fail, readers are told.
    private func lost(link: JanusLink, reason: String) {
        let waiting = state.withLock { state -> [Pending] in
            state.link = nil
            defer { state.pending = [:] }
            return Array(state.pending.values)
        }
        for pending in waiting { pending.continuation.resume(throwing: JanusError.connectionLost) }
        configuration.logger.warning("janus: session \(id): connection lost (\(reason)); reconnecting")
        eventSink.yield(.connectionLost(reason: reason))
    }

    /// Opens a new link and claims the session on it; nil when the session is closed.
    private func reconnect(router: Router) async -> JanusLink? {
        let deadline = ContinuousClock.now + configuration.reconnectFor
        var wait = Duration.milliseconds(250)
        var lastReason = "no connection"
        while ContinuousClock.now < deadline, !Task.isCancelled, !isClosed {
            do throws(JanusError) {
                let link = try await router.open(configuration)
                state.withLock { $0.link = link }
                do throws(JanusError) {
                    _ = try await send(["janus": "claim"], awaitsEvent: false, name: "claim")
                } catch {
                    switch error {
                    case .connectionLost, .timedOut:
                        await link.close()
                        lastReason = "\(error)"
                        continue
                    default:
                        await link.close()
                        closed(reason: "Janus did not give the session back: \(error)")
                        return nil
                    }
                }
                configuration.logger.info("janus: session \(id) claimed back")
                eventSink.yield(.reconnected)
                return link
            } catch {
                lastReason = "\(error)"
            }
            try? await Task.sleep(for: wait)
            wait = min(wait * 2, .seconds(2))
        }
        closed(reason: "no connection to Janus within \(configuration.reconnectFor): \(lastReason)")
        return nil
    }

    /// The session is gone: handles end, readers are told once.
    private func closed(reason: String) {
        if let link = markClosed(reason: reason) { Task { await link.close() } }
    }

    /// Marks the session closed (once): waiting requests fail, handles end, readers are told.
    /// The link it had, to close.
    private func markClosed(reason: String) -> JanusLink? {
        let closing = state.withLock {
            state -> (JanusLink?, [Pending], [AsyncStream<JanusHandleEvent>.Continuation])? in
            guard !state.closed else { return nil }
            state.closed = true
            defer {
                state.link = nil
                state.pending = [:]
                state.handles = [:]
            }
            return (state.link, Array(state.pending.values), Array(state.handles.values))
        }
        guard let (link, pending, handles) = closing else { return nil }
        supervisor.withLock { $0 }?.cancel()
        for waiting in pending { waiting.continuation.resume(throwing: JanusError.sessionClosed) }
        for handle in handles { handle.finish() }
        eventSink.yield(.closed(reason: reason))
        eventSink.finish()
        return link
    }

    /// A session with no connection, for the fuzzer: what `receive` is given goes where a
    /// connected session's messages go.
    package static func offline(id: Int64) -> JanusSession {
        JanusSession(id: id, configuration: Configuration(url: URL(fileURLWithPath: "/")))
    }

    /// Registers handle `id` as `attach` does, without asking Janus (the fuzzer's).
    package func attachOffline(handle id: Int64) -> AsyncStream<JanusHandleEvent> {
        let (stream, sink) = AsyncStream.makeStream(
            of: JanusHandleEvent.self,
            bufferingPolicy: .bufferingNewest(Self.maxBufferedEvents)
        )
        state.withLock { $0.handles[id] = sink }
        return stream
    }

    /// Closes a session made by ``offline(id:)``.
    package func closeOffline() { _ = markClosed(reason: "closed") }

    /// Forgets a detached handle.
    func forget(handle: Int64) {
        state.withLock { $0.handles.removeValue(forKey: handle) }?.finish()
    }
}
