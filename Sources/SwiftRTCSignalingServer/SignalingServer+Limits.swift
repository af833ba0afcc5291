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

/// Password checks running at once (PBKDF2 costs a fraction of a second of a core each):
/// one more than the limit is refused at once rather than queued, so that strangers cannot
/// occupy every core, nor pile up waiting work, with login attempts.
final class PasswordCheckGate: Sendable {
    let limit: Int
    private let running = Atomic<Int>(0)
    private let waiters = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Takes a place if one is free.
    func tryEnter() -> Bool {
        let (previous, _) = running.wrappingAdd(1, ordering: .acquiringAndReleasing)
        guard previous < limit else {
            running.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            return false
        }
        return true
    }

    /// Takes a place, waiting at most `wait` for one (polling every 10 ms), unless
    /// ``maxWaiting`` logins wait already.
    func enter(waitingAtMost wait: Duration) async -> Bool {
        if tryEnter() { return true }
        let (waiting, _) = waiters.wrappingAdd(1, ordering: .acquiringAndReleasing)
        defer { waiters.wrappingSubtract(1, ordering: .acquiringAndReleasing) }
        guard waiting < Self.maxWaiting else { return false }
        let deadline = ContinuousClock.now + wait
        while ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
            if tryEnter() { return true }
        }
        return false
    }

    /// Logins waiting for a place at once, at most (more are refused at once).
    static let maxWaiting = 64

    /// Gives back a place taken by ``tryEnter()``.
    func leave() {
        running.wrappingSubtract(1, ordering: .acquiringAndReleasing)
    }

    /// Checks running now.
    var count: Int { running.load(ordering: .acquiring) }
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
