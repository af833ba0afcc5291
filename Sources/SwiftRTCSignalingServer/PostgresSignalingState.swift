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

    private let client: PostgresClient
    private let logger = Logger(label: "swiftrtc.signaling.postgres") { _ in SwiftLogNoOpLogHandler() }
    private let errorLogger = SwiftRTCLogging.logger("signaling.postgres")
    private let pending = Mutex(PendingNotifications())
    private let (wake, wakeUp) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    private let listening = Atomic<Bool>(false)
    /// Notifications dropped because the queue was full (in count or in bytes).
    let droppedNotifications = Atomic<Int>(0)
    private let droppedMetric = Counter(label: "signaling_notifications_dropped_total")
    private let dropLog = LogThrottle<QueueLimit>(interval: dropLogInterval)
    /// Database round trips made to tell readiness: the heartbeats that reached the database
    /// (`/readyz` itself makes none).
    let readinessChecks = Atomic<Int>(0)
    /// When the last heartbeat that reached the database started.
    private let lastHeartbeat = Mutex<ContinuousClock.Instant?>(nil)

    /// Notifications waiting to be sent.
    var pendingNotificationCount: Int { pending.withLock { $0.items.count } }
    /// Bytes of the notifications waiting to be sent.
    var pendingNotificationBytes: Int { pending.withLock { $0.bytes } }

    /// The queue of notifications for other instances, in order, with its size in bytes.
    private struct PendingNotifications {
        var items: [(channel: String, payload: String)] = []
        var bytes = 0

        static func size(_ item: (channel: String, payload: String)) -> Int {
            item.channel.utf8.count + item.payload.utf8.count
        }
    }

    /// The limit of the queue a dropped notification hit.
    private enum QueueLimit: Hashable, Sendable {
        case count, bytes
    }

    init(client: PostgresClient) {
        self.client = client
    }

    private var channel: String { Self.channel(of: instanceID) }
    private static func channel(of instance: String) -> String { "signaling_\(instance)" }

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

    // MARK: Presence

    func claim(_ user: String, connection: Int) async throws -> UserPresence? {
        // One statement: the row as it was (the snapshot before the upsert), then as it is.
        let rows = try await client.query(
            """
            WITH previous AS (SELECT instance, connection FROM signaling_presence WHERE "user" = \(user))
            INSERT INTO signaling_presence ("user", instance, connection, away_since) VALUES (\(user), \(instanceID), \(connection), NULL)
            ON CONFLICT ("user") DO UPDATE SET instance = excluded.instance, connection = excluded.connection, away_since = NULL
            RETURNING (SELECT instance FROM previous), (SELECT connection FROM previous)
            """,
            logger: logger
        )
        for try await (instance, previous) in rows.decode((String?, Int?).self) {
            guard let instance, let previous, instance != instanceID else { return nil }
            return UserPresence(instance: instance, connection: previous)
        }
        return nil
    }

    func release(_ user: String, connection: Int) async throws {
        try await client.query(
            """
            UPDATE signaling_presence SET instance = NULL, connection = NULL, away_since = now()
            WHERE "user" = \(user) AND instance = \(instanceID) AND connection = \(connection)
            """,
            logger: logger
        )
    }

    func locate(_ user: String) async throws -> UserPresence? {
        let rows = try await client.query(
            """
            SELECT instance, connection FROM signaling_presence WHERE "user" = \(user) AND instance IS NOT NULL
            """,
            logger: logger
        )
        for try await (instance, connection) in rows.decode((String, Int).self) where instance != instanceID {
            return UserPresence(instance: instance, connection: connection)
        }
        return nil
    }

    func expireAway(before date: Date) async throws -> [(user: String, since: Date)] {
        // The users of instances gone silent are away since their last heartbeat.
        try await client.query(
            """
            UPDATE signaling_presence p SET instance = NULL, connection = NULL,
                away_since = coalesce((SELECT heartbeat FROM signaling_instance i WHERE i.id = p.instance), now())
            WHERE p.instance IS NOT NULL AND p.instance <> \(instanceID) AND NOT EXISTS (
                SELECT 1 FROM signaling_instance i WHERE i.id = p.instance
                AND i.heartbeat > now() - make_interval(secs => \(Self.deadAfter.seconds)))
            """,
            logger: logger
        )
        var expired: [(user: String, since: Date)] = []
        let rows = try await client.query(
            """
            DELETE FROM signaling_presence WHERE instance IS NULL AND away_since < \(date) RETURNING "user", away_since
            """,
            logger: logger
        )
        for try await (user, since) in rows.decode((String, Date).self) { expired.append((user, since)) }
        return expired.sorted { $0.since < $1.since }
    }

    func stillAway(_ users: [String]) async throws -> [String] {
        try await all(
            String.self,
            #"SELECT "user" FROM signaling_presence WHERE "user" = ANY(\#(users)) AND instance IS NULL"#
        )
    }

    func takeAway(_ users: [String]) async throws -> [(user: String, since: Date)] {
        var taken: [(user: String, since: Date)] = []
        let rows = try await client.query(
            """
            DELETE FROM signaling_presence WHERE "user" = ANY(\(users)) AND instance IS NULL RETURNING "user", away_since
            """,
            logger: logger
        )
        for try await (user, since) in rows.decode((String, Date).self) { taken.append((user, since)) }
        return taken
    }

    // MARK: Delivery

    func send(_ text: String, to user: String, at presence: UserPresence) {
        enqueue(Self.channel(of: presence.instance), "m \(user)\n\(text)")
    }

    func replace(_ user: String, at presence: UserPresence) {
        enqueue(Self.channel(of: presence.instance), "r \(presence.connection) \(user)")
    }

    private func enqueue(_ channel: String, _ payload: String) {
        let size = PendingNotifications.size((channel, payload))
        let full = pending.withLock { pending -> (limit: QueueLimit, count: Int, bytes: Int)? in
            guard pending.items.count < Self.maxPendingNotifications else {
                return (.count, pending.items.count, pending.bytes)
            }
            guard pending.bytes + size <= Self.maxPendingNotificationBytes else {
                return (.bytes, pending.items.count, pending.bytes)
            }
            pending.items.append((channel, payload))
            pending.bytes += size
            return nil
        }
        guard let full else {
            wakeUp.yield()
            return
        }
        droppedNotifications.add(1, ordering: .relaxed)
        droppedMetric.increment()
        guard let unlogged = dropLog.admit(full.limit) else { return }
        let limit =
            full.limit == .count
            ? "\(Self.maxPendingNotifications) notifications" : "\(Self.maxPendingNotificationBytes) bytes"
        errorLogger.warning(
            """
            signaling: dropped a message for another instance: \(full.count) notifications (\(full.bytes) bytes) \
            wait to be sent, at most \(limit); the database does not keep up\(dropLog.more(unlogged))
            """
        )
    }

    func run(deliver: @escaping @Sendable (ClusterDelivery) async -> Void) async throws {
        try await heartbeat()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.sendNotifications() }
            group.addTask { await self.listen(deliver: deliver) }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.heartbeatInterval)
                    do {
                        try await self.heartbeat()
                    } catch  where !Task.isCancelled {
                        self.errorLogger.error("signaling: heartbeat: \(String(reflecting: error))")
                    } catch {}
                }
            }
            await group.next()
            group.cancelAll()
        }
        _ = try? await client.query("DELETE FROM signaling_instance WHERE id = \(instanceID)", logger: logger)
    }

    func isReady() async -> Bool { isReady(at: .now) }

    /// Whether this instance listens for deliveries and its last heartbeat reached the database
    /// less than ``readyWithin`` before `now`.
    func isReady(at now: ContinuousClock.Instant) -> Bool {
        guard listening.load(ordering: .relaxed), let last = lastHeartbeat.withLock({ $0 }) else { return false }
        return now - last < Self.readyWithin
    }

    private func heartbeat() async throws {
        let started = ContinuousClock.now
        try await client.query(
            """
            INSERT INTO signaling_instance (id) VALUES (\(instanceID)) ON CONFLICT (id) DO UPDATE SET heartbeat = now()
            """,
            logger: logger
        )
        readinessChecks.add(1, ordering: .relaxed)
        lastHeartbeat.withLock { $0 = started }
        try await client.query(
            """
            DELETE FROM signaling_payload WHERE created < now() - make_interval(secs => \(Self.payloadRetention.seconds))
            """,
            logger: logger
        )
        try await client.query(
            """
            DELETE FROM signaling_instance WHERE heartbeat < now() - make_interval(secs => \(Self.payloadRetention.seconds))
            """,
            logger: logger
        )
    }

    /// Sends the queued notifications, a batch per statement, each statement after the last
    /// one committed (the order of delivery).
    private func sendNotifications() async {
        for await _ in wake {
            while true {
                let batch = pending.withLock { pending -> [(channel: String, payload: String)] in
                    let batch = Array(pending.items.prefix(256))
                    pending.items.removeFirst(batch.count)
                    for item in batch { pending.bytes -= PendingNotifications.size(item) }
                    return batch
                }
                guard !batch.isEmpty else { break }
                do {
                    try await notify(batch)
                } catch {
                    errorLogger.error("signaling: NOTIFY: \(String(reflecting: error))")
                }
            }
        }
    }

    private func notify(_ batch: [(channel: String, payload: String)]) async throws {
        var small: [(channel: String, payload: String)] = []
        func flush() async throws {
            guard !small.isEmpty else { return }
            let channels = small.map(\.channel)
            let payloads = small.map(\.payload)
            small.removeAll()
            try await client.query(
                "SELECT pg_notify(c, p) FROM unnest(\(channels)::text[], \(payloads)::text[]) AS t(c, p)",
                logger: logger
            )
        }
        for item in batch {
            guard item.payload.utf8.count > Self.maxNotifyBytes else {
                small.append(item)
                continue
            }
            try await flush()
            // "m USER\nJSON" → the JSON in the table, "p ID USER" in the notification.
            let newline = item.payload.firstIndex(of: "\n") ?? item.payload.endIndex
            let user = item.payload[item.payload.index(item.payload.startIndex, offsetBy: 2)..<newline]
            let body = String(item.payload[newline...].dropFirst())
            try await client.query(
                """
                WITH stored AS (INSERT INTO signaling_payload (body) VALUES (\(body)) RETURNING id)
                SELECT pg_notify(\(item.channel), 'p ' || id || ' ' || \(String(user))) FROM stored
                """,
                logger: logger
            )
        }
        try await flush()
    }

    /// Listens on this instance's channel (again after a lost connection) and hands each
    /// delivery over, in order.
    private func listen(deliver: @escaping @Sendable (ClusterDelivery) async -> Void) async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { [channel] connection in
                    try await connection.listen(on: channel) { notifications in
                        self.listening.store(true, ordering: .relaxed)
                        for try await notification in notifications {
                            if let delivery = try await self.delivery(notification.payload, connection: connection) {
                                await deliver(delivery)
                            }
                        }
                    }
                }
            } catch {
                if !Task.isCancelled { errorLogger.error("signaling: LISTEN: \(String(reflecting: error))") }
            }
            listening.store(false, ordering: .relaxed)
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func delivery(_ payload: String, connection: PostgresConnection) async throws -> ClusterDelivery? {
        let kind = payload.prefix(2)
        let rest = payload.dropFirst(2)
        switch kind {
        case "m ":
            guard let newline = rest.firstIndex(of: "\n") else { return nil }
            return .message(to: String(rest[..<newline]), text: String(rest[rest.index(after: newline)...]))
        case "p ":
            let parts = rest.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let id = Int(parts[0]) else { return nil }
            for try await body in try await connection.query(
                "DELETE FROM signaling_payload WHERE id = \(id) RETURNING body",
                logger: logger
            ).decode(String.self) {
                return .message(to: String(parts[1]), text: body)
            }
            return nil
        case "r ":
            let parts = rest.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let connectionID = Int(parts[0]) else { return nil }
            return .replaced(user: String(parts[1]), connection: connectionID)
        case "c":
            return .credentialsChanged
        default:
            return nil
        }
    }

    // MARK: Users

    /// Makes `entries` the stored users unless the stored ones have the same `digest`
    /// (unchanged) or come from a file modified after `modified` (kept); the running instances
    /// are told when they change. One instance at a time (an advisory lock).
    func storeCredentials(
        _ entries: [SignalingCredentials.Entry],
        modified: Date,
        digest: String
    ) async throws -> PostgresStorage.CredentialsStoreResult {
        let result = try await PostgresSchema.transaction(client, logger: logger) {
            [logger, instanceID] connection -> PostgresStorage.CredentialsStoreResult in
            try await connection.query(
                "SELECT pg_advisory_xact_lock(\(PostgresSchema.credentialsLock))",
                logger: logger
            )
            var stored: (modified: Double, digest: String)?
            for try await row in try await connection.query(
                "SELECT modified, digest FROM signaling_credential_version",
                logger: logger
            ).decode((Double, String).self) {
                stored = row
            }
            if let stored {
                if stored.digest == digest { return .unchanged }
                if modified.timeIntervalSince1970 < stored.modified {
                    return .newerStored(modified: Date(timeIntervalSince1970: stored.modified))
                }
            }
            try await connection.query("DELETE FROM signaling_credential", logger: logger)
            for batch in stride(from: 0, to: entries.count, by: 1000).map({
                Array(entries[$0..<min($0 + 1000, entries.count)])
            }) {
                let kinds = batch.map(\.kind.rawValue)
                let users = batch.map(\.user)
                let secrets = batch.map(\.secret)
                try await connection.query(
                    """
                    INSERT INTO signaling_credential (kind, "user", secret) SELECT * FROM unnest(\(kinds)::text[], \(users)::text[], \(secrets)::text[])
                    """,
                    logger: logger
                )
            }
            try await connection.query(
                """
                INSERT INTO signaling_credential_version (id, modified, digest, stored, instance)
                VALUES (1, \(modified.timeIntervalSince1970), \(digest), now(), \(instanceID))
                ON CONFLICT (id) DO UPDATE SET modified = excluded.modified, digest = excluded.digest,
                    stored = excluded.stored, instance = excluded.instance
                """,
                logger: logger
            )
            return .stored
        }
        guard result == .stored else { return result }
        // Every running instance reloads them.
        try await client.query("SELECT pg_notify('signaling_' || id, 'c') FROM signaling_instance", logger: logger)
        return result
    }

    func loadCredentials() async throws -> [SignalingCredentials.Entry] {
        var entries: [SignalingCredentials.Entry] = []
        let rows = try await client.query(#"SELECT kind, "user", secret FROM signaling_credential"#, logger: logger)
        for try await (kind, user, secret) in rows.decode((String, String, String).self) {
            guard let kind = SignalingCredentials.Entry.Kind(rawValue: kind) else { continue }
            entries.append(.init(kind: kind, user: user, secret: secret))
        }
        return entries
    }

    // MARK: Queries

    private func single<T: PostgresDecodable & Sendable>(_ type: T.Type, _ query: PostgresQuery) async throws -> T? {
        for try await value in try await client.query(query, logger: logger).decode(T.self) { return value }
        return nil
    }

    private func all<T: PostgresDecodable & Sendable>(_ type: T.Type, _ query: PostgresQuery) async throws -> [T] {
        var values: [T] = []
        for try await value in try await client.query(query, logger: logger).decode(T.self) { values.append(value) }
        return values
    }
}
