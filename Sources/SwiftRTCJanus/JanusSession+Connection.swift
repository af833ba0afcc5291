import Foundation
import Logging
import SwiftRTCSignaling
import Synchronization

// The connection: a link's messages routed to the session, kept alive, reconnected and claimed back, or closed.
extension JanusSession {
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
    func supervise(link: JanusLink, router: Router) {
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

    /// Calls `keepalive` every `interval` until `link` ends (or it says the session is gone);
    /// why the link ended.
    static func keepAlive(
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
    func lost(link: JanusLink, reason: String) {
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
    func reconnect(router: Router) async -> JanusLink? {
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
    func closed(reason: String) {
        if let link = markClosed(reason: reason) { Task { await link.close() } }
    }

    /// Marks the session closed (once): waiting requests fail, handles end, readers are told.
    /// The link it had, to close.
    func markClosed(reason: String) -> JanusLink? {
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
