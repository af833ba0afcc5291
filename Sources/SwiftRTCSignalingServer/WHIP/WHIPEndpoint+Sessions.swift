import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle
import SwiftRTCCore
import SwiftRTCSDP
import SwiftRTCSignaling
import Synchronization

// The end of open sessions: by the client's `DELETE`, or when they do not connect in time,
// fail, or last too long.
extension WHIPEndpoint {
    /// Follows session `id`'s connection: ends it when it is not connected `timeout` after
    /// its creation, when it fails, or `lifetime` after its creation. Cancelled when the
    /// session is ended otherwise.
    func watch(
        _ id: String,
        _ session: any WHIPEndpointSession,
        timeout: Duration,
        lifetime: Duration
    ) async {
        let states = await session.connectionStates()
        let connected = ConnectedFlag()
        let outcome: WatchOutcome? = await withTaskGroup(of: WatchOutcome?.self) { group in
            group.addTask {
                for await state in states {
                    switch state {
                    case .connected: connected.set()
                    case .failed: return .failed
                    case .connecting: break
                    }
                }
                return nil
            }
            group.addTask {
                do { try await Task.sleep(for: timeout) } catch { return nil }
                return connected.isSet ? nil : .timedOut
            }
            group.addTask {
                do { try await Task.sleep(for: lifetime) } catch { return nil }
                return .expired
            }
            while let result = await group.next() {
                if let result {
                    group.cancelAll()
                    return result
                }
            }
            return nil
        }
        guard let outcome, !Task.isCancelled else { return }
        let entry = state.withLock { state -> Entry? in
            guard let entry = state.sessions.removeValue(forKey: id) else { return nil }
            state.release(entry.address)
            switch outcome {
            case .timedOut: state.stats.timedOut += 1
            case .failed: state.stats.failed += 1
            case .expired: state.stats.expired += 1
            }
            return entry
        }
        guard let entry else { return }
        await entry.session.end()
        switch outcome {
        case .timedOut:
            logger.info("WHIP session ended: not connected within \(timeout)", metadata: ["session": "\(id)"])
        case .failed: logger.info("WHIP session ended: its connection failed", metadata: ["session": "\(id)"])
        case .expired: logger.info("WHIP session ended: it lasted \(lifetime)", metadata: ["session": "\(id)"])
        }
    }

    private enum WatchOutcome: Sendable { case timedOut, failed, expired }

    /// Whether a watched session has connected (set once, read by the timer).
    private final class ConnectedFlag: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    /// Ends session `id` of the endpoint at `path`.
    func endSession(id: String, at path: String) async -> Response {
        guard
            let entry = state.withLock({ state -> Entry? in
                guard state.sessions[id]?.path == path, let entry = state.sessions.removeValue(forKey: id) else {
                    return nil
                }
                state.release(entry.address)
                state.stats.endedByClient += 1
                return entry
            })
        else {
            return Self.text(.notFound, "no \(path == configuration.path ? "WHIP" : "WHEP") session \(id)")
        }
        entry.watcher.cancel()
        await entry.session.end()
        logger.info(
            "\(path == configuration.path ? "WHIP" : "WHEP") session ended by DELETE",
            metadata: ["session": "\(id)"]
        )
        return Response(status: .ok)
    }
}
