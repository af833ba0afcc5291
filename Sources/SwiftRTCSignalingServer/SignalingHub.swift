import Foundation
import Logging
import SwiftRTCCore
import SwiftRTCSignaling
import Synchronization

/// The signaling server's state: the connections and who they are authenticated as, the call
/// sessions, and the rules that route or refuse each message (see ``SignalingServer``).
///
/// The connection tasks parse messages concurrently; everything that reads or changes shared
/// state runs here, one message at a time.
actor SignalingHub {
    /// What a connection's writer sends next.
    enum Outbound: Sendable {
        case text(String)
        case close(CloseCode, String)
    }

    /// The WebSocket close codes the server uses (RFC 6455 §7.4.1).
    enum CloseCode: Sendable {
        /// 1001: the server is shutting down.
        case goingAway
        /// 1008: authentication failed, no hello in time, or replaced by a newer connection.
        case policyViolation
    }

    /// Whether a new connection may stay.
    enum Admission: Sendable {
        /// Registered under this id.
        case opened(Int)
        /// Over a connection limit: the error reply to send before closing (1008).
        case refused(String)
        /// The server is stopping: close (1001).
        case stopping
    }

    struct Connection {
        let outbound: AsyncStream<Outbound>.Continuation
        /// Bounds what waits in `outbound` (a close always goes in).
        let queue: SendQueue
        /// Tells the connection it is closed: it is cut off if it does not take the close in time.
        let closer: AsyncStream<Void>.Continuation
        let opened: ContinuousClock.Instant
        /// ``ClientAddress/key(forIP:)`` of the client.
        let address: String
        var user: String?
        /// A close was queued: nothing more is expected of it.
        var closing = false
    }

    /// Who may log in, and how many times they were replaced.
    struct CredentialsVersion: Sendable {
        var credentials: SignalingCredentials
        var generation = 0
    }

    let configuration: SignalingServer.Configuration
    /// Who may log in (replaced when the shared state's users change).
    nonisolated let currentCredentials: Mutex<CredentialsVersion>
    let callLog: any CallLogStore
    /// Sessions and presence: this process's, or shared with other instances.
    nonisolated let state: any SignalingState
    nonisolated let metrics = SignalingMetrics()
    /// What each limit refused (read by the connection tasks too).
    nonisolated let limits: LimitCounters
    /// Password checks running (taken by the connection tasks, off the actor).
    nonisolated let passwordChecks: PasswordCheckGate
    /// Failed password logins per address and per user (consulted by the connection tasks).
    nonisolated let loginThrottle: LoginThrottle
    let logger = SwiftRTCLogging.logger("signaling")
    var connections: [Int: Connection] = [:]
    var connectionsByAddress: [String: Int] = [:]
    var connectionByUser: [String: Int] = [:]
    var nextConnectionID = 1
    var stopping = false
    /// A sweep is under way (it may own away users it took from the state).
    var sweeping = false
    /// ``shutdown()`` waiting for the sweep under way to finish.
    var sweepFinished: [CheckedContinuation<Void, Never>] = []
    /// Calls each user may still start.
    var callStarts: CallStartBudget
    /// Calls started since the call log was last pruned, and when that was.
    var callsSincePrune = 0
    var lastPrune: ContinuousClock.Instant?

    init(configuration: SignalingServer.Configuration, credentials: SignalingCredentials, storage: SignalingStorage) {
        self.configuration = configuration
        currentCredentials = Mutex(CredentialsVersion(credentials: credentials))
        callLog = storage.callLog
        state = storage.state
        limits = LimitCounters(logger: logger, metrics: metrics)
        passwordChecks = PasswordCheckGate(limit: configuration.maxConcurrentPasswordChecks)
        loginThrottle = LoginThrottle()
        callStarts = CallStartBudget(perMinute: configuration.callsPerMinutePerUser)
    }

    /// Who may log in now.
    nonisolated var credentials: SignalingCredentials { currentCredentials.withLock { $0.credentials } }

    /// Who may log in now, with the generation a ``hello(user:messageID:connection:checkedWith:)``
    /// checked against them passes along.
    nonisolated var credentialsVersion: CredentialsVersion { currentCredentials.withLock { $0 } }

    /// Replaces who may log in, and closes the connections of users the new credentials do not
    /// let in as before (removed, or another token or password): an `error` (401) saying why,
    /// then 1008; logged in one line, counted (`signaling_connections_revoked_total`). They are
    /// away from then, as after any lost connection.
    func replaceCredentials(_ credentials: SignalingCredentials) {
        let previous = currentCredentials.withLock { current in
            defer { current = CredentialsVersion(credentials: credentials, generation: current.generation + 1) }
            return current.credentials
        }
        guard !connectionByUser.isEmpty else { return }
        let connected = Set(connectionByUser.keys)
        let before = previous.secrets(of: connected)
        let after = credentials.secrets(of: connected)
        var revoked: [String] = []
        for (user, id) in connectionByUser.sorted(by: { $0.key < $1.key }) where before[user] != after[user] {
            let reason = after[user] == nil ? "removed from the server's users" : "credentials changed: log in again"
            refuse(connection: id, code: .unauthenticated, reason: reason, replyTo: nil)
            close(id, code: .policyViolation, reason: reason)
            metrics.connectionsRevoked.increment()
            revoked.append(user)
        }
        guard !revoked.isEmpty else { return }
        let shown = revoked.prefix(20).joined(separator: ", ") + (revoked.count > 20 ? ", …" : "")
        logger.notice(
            "signaling: the users changed: closed the connections of \(revoked.count) removed or with other credentials: \(shown)"
        )
    }
}
