import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import SwiftRTCCore
import SwiftRTCSignaling
import Synchronization

extension SignalingServer {
    /// How often the server refused something because a limit was reached, since it was made
    /// (``SignalingServer/counters``). A stranger hitting a limit is counted here and logged at
    /// most once per ``LimitCounters/logInterval`` per kind, with the number left unlogged.
    public struct Counters: Sendable, Hashable, CustomStringConvertible {
        /// Connections refused because ``Configuration/maxConnections`` were open.
        public var connectionsOverTotalLimit = 0
        /// Connections refused because ``Configuration/maxConnectionsPerAddress`` were open from
        /// the same client address.
        public var connectionsOverAddressLimit = 0
        /// Hellos refused because ``Configuration/maxConcurrentPasswordChecks`` password checks
        /// were running.
        public var passwordChecksOverLimit = 0
        /// Password logins refused unchecked by the failed-login budgets (per address, per user).
        public var loginsThrottled = 0
        /// Messages refused by a connection's rate limit (``Configuration/messagesPerSecond``).
        public var messagesOverRateLimit = 0
        /// Messages refused for their size (``SignalingLimits/maxMessageBytes``).
        public var messagesTooLarge = 0
        /// Calls refused because their initiator had ``Configuration/maxOpenCallsPerUser`` open.
        public var callsOverOpenLimit = 0
        /// Calls refused because their session id was used before (the call log keeps each id).
        public var sessionIDsReused = 0
        /// Calls refused because their initiator started ``Configuration/callsPerMinutePerUser``
        /// calls in the last minute.
        public var callsOverRateLimit = 0

        /// Every counter at 0.
        public init() {}

        /// `name=count` for every counter, in declaration order.
        public var description: String {
            LimitCounters.Kind.allCases.map { "\($0.name)=\(self[keyPath: $0.keyPath])" }.joined(separator: " ")
        }
    }
}

/// The server's ``SignalingServer/Counters`` and the rate-limited log line of each refusal.
/// Shared by the hub and the connection tasks (one lock; refusals are rare for honest clients).
final class LimitCounters: Sendable {
    /// One kind of refusal.
    enum Kind: CaseIterable, Sendable {
        case connectionsOverTotalLimit, connectionsOverAddressLimit, passwordChecksOverLimit, loginsThrottled
        case messagesOverRateLimit, messagesTooLarge, callsOverOpenLimit, sessionIDsReused, callsOverRateLimit

        var keyPath: WritableKeyPath<SignalingServer.Counters, Int> {
            switch self {
            case .connectionsOverTotalLimit: \.connectionsOverTotalLimit
            case .connectionsOverAddressLimit: \.connectionsOverAddressLimit
            case .passwordChecksOverLimit: \.passwordChecksOverLimit
            case .loginsThrottled: \.loginsThrottled
            case .messagesOverRateLimit: \.messagesOverRateLimit
            case .messagesTooLarge: \.messagesTooLarge
            case .callsOverOpenLimit: \.callsOverOpenLimit
            case .sessionIDsReused: \.sessionIDsReused
            case .callsOverRateLimit: \.callsOverRateLimit
            }
        }

        var name: String { String(describing: self) }
    }

    /// The shortest time between two log lines of the same kind.
    static let logInterval: Duration = .seconds(10)

    private let counters = Mutex(SignalingServer.Counters())
    private let logThrottle = LogThrottle<Kind>(interval: logInterval)
    private let logger: Logger

    private let metrics: SignalingMetrics

    init(logger: Logger, metrics: SignalingMetrics) {
        self.logger = logger
        self.metrics = metrics
    }

    /// The counters now.
    var snapshot: SignalingServer.Counters { counters.withLock { $0 } }

    /// Counts one refusal of `kind` and logs `detail` unless a line of this kind went out
    /// within ``logInterval`` (then the next line says how many were not logged).
    func hit(_ kind: Kind, _ detail: @autoclosure () -> String, now: ContinuousClock.Instant = .now) {
        metrics.refused(kind)
        counters.withLock { $0[keyPath: kind.keyPath] += 1 }
        guard let unlogged = logThrottle.admit(kind, now: now) else { return }
        logger.notice("signaling: refused: \(detail())\(logThrottle.more(unlogged))")
    }
}

/// Password checks running at once (PBKDF2 costs a fraction of a second of a core each), so
/// that strangers cannot occupy every core with login attempts: a login from a suspect address
/// that finds every place taken is refused at once (``tryEnter()``); one from a clean address
/// waits its turn (``enter(waitingAtMost:)``: a place is handed over as a check ends), a few
/// seconds at most and ``maxWaiting`` at once, so that no waiting work piles up.
final class PasswordCheckGate: Sendable {
    let limit: Int
    private struct State {
        var running = 0
        var nextWaiter = 0
        /// Logins waiting for a place, first come first served: ``leave()`` hands its place
        /// to the first.
        var waiters: [(id: Int, continuation: CheckedContinuation<Bool, Never>)] = []
    }
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Takes a place if one is free (and nobody waits for it).
    func tryEnter() -> Bool {
        state.withLock { state in
            guard state.running < limit, state.waiters.isEmpty else { return false }
            state.running += 1
            return true
        }
    }

    /// Takes a place, waiting at most `wait` for one (the next ``leave()`` hands it over),
    /// unless ``maxWaiting`` logins wait already.
    func enter(waitingAtMost wait: Duration) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let waiting: Int? = state.withLock { state in
                if state.running < limit, state.waiters.isEmpty {
                    state.running += 1
                    continuation.resume(returning: true)
                    return nil
                }
                guard state.waiters.count < Self.maxWaiting else {
                    continuation.resume(returning: false)
                    return nil
                }
                state.nextWaiter += 1
                state.waiters.append((state.nextWaiter, continuation))
                return state.nextWaiter
            }
            guard let waiting else { return }
            // Past the wait, the login gives up its turn (unless a place came first).
            Task { [self] in
                try? await Task.sleep(for: wait)
                let expired = state.withLock { state in
                    state.waiters.firstIndex { $0.id == waiting }.map { state.waiters.remove(at: $0).continuation }
                }
                expired?.resume(returning: false)
            }
        }
    }

    /// Logins waiting for a place at once, at most (more are refused at once).
    static let maxWaiting = 64

    /// Gives back a place taken by ``tryEnter()`` or ``enter(waitingAtMost:)``: to the first
    /// login waiting, if any.
    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard !state.waiters.isEmpty else {
                state.running = max(0, state.running - 1)
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume(returning: true)
    }

    /// Checks running now.
    var count: Int { state.withLock { $0.running } }
}

/// The request context of the signaling server's routes: Hummingbird's, plus the client's
/// address (the TCP peer) for the per-address connection limit. Made when a request's head
/// has come in, which it tells the connection's door (``ServerDoor/requestStarted(on:)``).
struct SignalingRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    /// ``ClientAddress/key(forIP:)`` of the TCP peer.
    let clientAddress: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        clientAddress = ClientAddress.key(forIP: source.channel.remoteAddress?.ipAddress)
        ServerDoor.requestStarted(on: source.channel)
    }
}
