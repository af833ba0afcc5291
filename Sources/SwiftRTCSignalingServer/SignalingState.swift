import Foundation

/// Where a user's authenticated connection is: which server instance, and its connection there.
struct UserPresence: Sendable, Hashable {
    let instance: String
    let connection: Int
}

/// What another instance sends this one.
enum ClusterDelivery: Sendable {
    /// A message (its JSON text) for a user connected here.
    case message(to: String, text: String)
    /// The user logged in elsewhere: close this connection of theirs (replaced).
    case replaced(user: String, connection: Int)
    /// The users stored in the database changed: load them again.
    case credentialsChanged
}

/// The state a signaling server shares with the other instances on its database, or keeps to
/// itself when it runs alone: call sessions, where each user is connected, and the delivery of
/// messages to users connected elsewhere.
///
/// ``LocalSignalingState`` keeps it in this process; ``PostgresSignalingState`` in PostgreSQL,
/// where presence is refreshed by heartbeats and messages for other instances travel by
/// `LISTEN`/`NOTIFY`.
protocol SignalingState: Sendable {
    /// This instance's id (random, one per run).
    var instanceID: String { get }
    /// Whether other instances share the state: users may be connected elsewhere, and calls
    /// outlive this instance.
    var isShared: Bool { get }

    // MARK: Sessions

    /// Runs `body` on session `id`'s state (nil: no such session) while no other instance
    /// changes it; what `body` leaves is stored (nil removes the session; ended sessions are
    /// forgotten by ``forgetSessions(endedBefore:)``).
    /// - Throws: when the state cannot be read or written, or another instance created the
    ///   same session meanwhile (``SignalingStateError/sessionTaken``).
    func withSession<R: Sendable>(_ id: String, _ body: @Sendable (inout SessionState?) -> R) async throws -> R
    /// The sessions `user` started and that have not ended.
    func openCalls(initiatedBy user: String) async throws -> Int
    /// The sessions `user` is a participant of and that have not ended.
    func openSessions(of user: String) async throws -> [String]
    /// Unanswered sessions started before `date` (ring timeout candidates).
    func unansweredSessions(startedBefore date: Date) async throws -> [String]
    /// Forgets sessions that ended before `date` (late messages to them are refused then).
    func forgetSessions(endedBefore date: Date) async throws

    // MARK: Presence

    /// `user` is connected here on `connection`; returns where they were connected before, if
    /// on another instance (that connection is to be closed as replaced).
    func claim(_ user: String, connection: Int) async throws -> UserPresence?
    /// `user`'s `connection` here closed: they are away from now (if that connection was still
    /// theirs), and have the reconnect grace to come back before they leave their calls.
    func release(_ user: String, connection: Int) async throws
    /// Where `user` is connected, when on another instance.
    func locate(_ user: String) async throws -> UserPresence?
    /// Users away since before `date` (their connection closed, or their instance died),
    /// removed from presence: they leave their calls now. With when they went away.
    func expireAway(before date: Date) async throws -> [(user: String, since: Date)]
    /// Which of `users` are still away (not logged in again anywhere).
    func stillAway(_ users: [String]) async throws -> [String]
    /// Those of `users` still away, removed from presence (they leave their calls now), with
    /// when they went away.
    func takeAway(_ users: [String]) async throws -> [(user: String, since: Date)]

    // MARK: Delivery to other instances

    /// Sends a message's JSON text to `user` at `presence` (another instance), after every
    /// message sent before it (order per session holds).
    func send(_ text: String, to user: String, at presence: UserPresence)
    /// Tells the instance at `presence` to close that connection of `user` (replaced).
    func replace(_ user: String, at presence: UserPresence)

    /// Runs this instance's part (heartbeats, listening for deliveries, expiring dead
    /// instances) until cancelled; deliveries for this instance go to `deliver`.
    func run(deliver: @escaping @Sendable (ClusterDelivery) async -> Void) async throws
    /// Whether the shared state is reachable (`/readyz`), as the instance's own work last found
    /// it: answered without a query, since anyone may ask.
    func isReady() async -> Bool
}

/// Why the shared state refused an operation.
enum SignalingStateError: Error, Sendable, CustomStringConvertible {
    /// Another instance created the session first.
    case sessionTaken(String)

    var description: String {
        switch self {
        case let .sessionTaken(id): "session \(id) was created by another instance at the same time"
        }
    }
}
