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
    let eventSink: AsyncStream<JanusSessionEvent>.Continuation
    let state = Mutex(State())
    let supervisor = Mutex<Task<Void, Never>?>(nil)

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

    init(id: Int64, configuration: Configuration) {
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
    func fail(_ transaction: String, with error: JanusError) {
        state.withLock { $0.pending.removeValue(forKey: transaction) }?.continuation.resume(throwing: error)
    }

    static func newTransaction() -> String {
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
    func answer(_ message: JanusMessage, transaction: String) -> Bool {
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

    deinit {
        supervisor.withLock { $0 }?.cancel()
        state.withLock { $0.link }?.finish()
    }

    /// Whether the session ended (destroyed, timed out, or not claimed back).
    public var isClosed: Bool { state.withLock { $0.closed } }
}
