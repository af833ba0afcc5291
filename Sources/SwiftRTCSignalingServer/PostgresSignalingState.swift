import CoreMetrics
import Foundation
import Logging
import PostgresNIO
import SwiftRTCCore
import SwiftRTCSignaling
import Synchronization

/// ``SignalingState`` in PostgreSQL, shared by every server instance on the database.
///
/// - Sessions: one row each (`signaling_session`), its ``SessionState`` as JSON, changed under
///   `SELECT … FOR UPDATE`, so one instance at a time applies a session's rules.
/// - Presence: `signaling_presence` says which instance and connection hold each user.
///   Instances write a heartbeat every ``heartbeatInterval``; one silent for ``deadAfter`` is
///   dead, and its users are away from its last heartbeat.
/// - Readiness (`/readyz`): listening on its channel, and a heartbeat reached the database
///   within ``readyWithin``. It is answered from memory, never by a query: strangers asking
///   it cost the database nothing (``readinessChecks`` counts the heartbeats that refresh it).
/// - Delivery: `NOTIFY` on the other instance's channel, sent one batch after another from one
///   queue, so that messages arrive in the order they were routed. A payload over
///   ``maxNotifyBytes`` goes into `signaling_payload`; the notification carries its id. The
///   queue holds at most ``maxPendingNotifications`` notifications and
///   ``maxPendingNotificationBytes`` bytes: more are dropped, counted
///   (``droppedNotifications``, `signaling_notifications_dropped_total`) and logged at most once
///   per ``dropLogInterval``.
final class PostgresSignalingState: SignalingState {
    let instanceID = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    var isShared: Bool { true }

    /// How often an instance says it is alive.
    static let heartbeatInterval: Duration = .seconds(2)
    /// An instance silent this long is dead: its users are away.
    static let deadAfter: Duration = .seconds(10)
    /// Ready while the last heartbeat that reached the database is younger than this: three
    /// heartbeats, so that one slow heartbeat does not flap readiness, and under ``deadAfter``,
    /// so that a load balancer stops sending users here before the other instances give this
    /// one up.
    static let readyWithin: Duration = .seconds(6)
    /// `NOTIFY` payloads must stay under 8000 bytes; larger messages go through a table.
    static let maxNotifyBytes = 7_000
    /// Notifications waiting to be sent; more are dropped (and counted).
    static let maxPendingNotifications = 20_000
    /// Bytes (channel names and payloads) of the notifications waiting to be sent, 8 MiB; more
    /// are dropped (and counted). Without it the count alone let the queue of an instance whose
    /// database is slow grow to 20,000 payloads of up to 7 KB: 140 MB.
    static let maxPendingNotificationBytes = 8 << 20
    /// The shortest time between two log lines about dropped notifications.
    static let dropLogInterval: Duration = .seconds(10)
    /// Stored payloads nobody fetched (their instance died) are deleted after this long.
    static let payloadRetention: Duration = .seconds(60)

    let client: PostgresClient
    let logger = Logger(label: "swiftrtc.signaling.postgres") { _ in SwiftLogNoOpLogHandler() }
    let errorLogger = SwiftRTCLogging.logger("signaling.postgres")
    let pending = Mutex(PendingNotifications())
    let (wake, wakeUp) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let listening = Atomic<Bool>(false)
    /// Notifications dropped because the queue was full (in count or in bytes).
    let droppedNotifications = Atomic<Int>(0)
    let droppedMetric = Counter(label: "signaling_notifications_dropped_total")
    let dropLog = LogThrottle<QueueLimit>(interval: dropLogInterval)
    /// Database round trips made to tell readiness: the heartbeats that reached the database
    /// (`/readyz` itself makes none).
    let readinessChecks = Atomic<Int>(0)
    /// When the last heartbeat that reached the database started.
    let lastHeartbeat = Mutex<ContinuousClock.Instant?>(nil)

    /// Notifications waiting to be sent.
    var pendingNotificationCount: Int { pending.withLock { $0.items.count } }
    /// Bytes of the notifications waiting to be sent.
    var pendingNotificationBytes: Int { pending.withLock { $0.bytes } }

    /// The queue of notifications for other instances, in order, with its size in bytes.
    struct PendingNotifications {
        var items: [(channel: String, payload: String)] = []
        var bytes = 0

        static func size(_ item: (channel: String, payload: String)) -> Int {
            item.channel.utf8.count + item.payload.utf8.count
        }
    }

    /// The limit of the queue a dropped notification hit.
    enum QueueLimit: Hashable, Sendable {
        case count, bytes
    }

    init(client: PostgresClient) {
        self.client = client
    }

    var channel: String { Self.channel(of: instanceID) }
    static func channel(of instance: String) -> String { "signaling_\(instance)" }

    // MARK: Sessions

    func withSession<R: Sendable>(_ id: String, _ body: @Sendable (inout SessionState?) -> R) async throws -> R {
        try await PostgresSchema.transaction(client, logger: logger) { [logger] connection in
            var before: SessionState?
            for try await text in try await connection.query(
                "SELECT state FROM signaling_session WHERE id = \(id) FOR UPDATE",
                logger: logger
            ).decode(String.self) {
                before = try JSONDecoder().decode(SessionState.self, from: Data(text.utf8))
            }
            var after = before
            let result = body(&after)
            guard after != before else { return result }
            guard let after else {
                try await connection.query("DELETE FROM signaling_session WHERE id = \(id)", logger: logger)
                return result
            }
            let text = String(decoding: try JSONEncoder().encode(after), as: UTF8.self)
            let session = after.session
            if before == nil {
                var inserted = false
                for try await _ in try await connection.query(
                    """
                    INSERT INTO signaling_session (id, initiator, participants, started, answered, ended, state)
                    VALUES (\(id), \(session.initiator), \(session.participants), \(session.started), \(session.answered), \(session.ended), \(text))
                    ON CONFLICT (id) DO NOTHING RETURNING id
                    """,
                    logger: logger
                ) { inserted = true }
                guard inserted else { throw SignalingStateError.sessionTaken(id) }
            } else {
                try await connection.query(
                    """
                    UPDATE signaling_session SET answered = \(session.answered), ended = \(session.ended), state = \(text) WHERE id = \(id)
                    """,
                    logger: logger
                )
            }
            return result
        }
    }

    func openCalls(initiatedBy user: String) async throws -> Int {
        try await single(Int.self, "SELECT count(*) FROM signaling_session WHERE initiator = \(user) AND ended IS NULL")
            ?? 0
    }

    func openSessions(of user: String) async throws -> [String] {
        try await all(
            String.self,
            "SELECT id FROM signaling_session WHERE participants @> \([user]) AND ended IS NULL ORDER BY id"
        )
    }

    func unansweredSessions(startedBefore date: Date) async throws -> [String] {
        try await all(
            String.self,
            "SELECT id FROM signaling_session WHERE ended IS NULL AND NOT answered AND started < \(date)"
        )
    }

    func forgetSessions(endedBefore date: Date) async throws {
        try await client.query("DELETE FROM signaling_session WHERE ended < \(date)", logger: logger)
    }

    // MARK: Queries

    private func single<T: PostgresDecodable & Sendable>(_ type: T.Type, _ query: PostgresQuery) async throws -> T? {
        for try await value in try await client.query(query, logger: logger).decode(T.self) { return value }
        return nil
    }

    func all<T: PostgresDecodable & Sendable>(_ type: T.Type, _ query: PostgresQuery) async throws -> [T] {
        var values: [T] = []
        for try await value in try await client.query(query, logger: logger).decode(T.self) { values.append(value) }
        return values
    }
}
