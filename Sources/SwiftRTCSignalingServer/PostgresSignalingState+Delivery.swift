import CoreMetrics
import Foundation
import Logging
import PostgresNIO
import SwiftRTCCore
import SwiftRTCSignaling
import Synchronization

// Delivery: notifications to other instances (queued, sent in order), this instance's
// channel, heartbeats and readiness.
extension PostgresSignalingState {
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
}
