import CoreMetrics
import Foundation
import Logging
import PostgresNIO
import SwiftRTCCore
import SwiftRTCSignaling
import Synchronization

// Presence: which instance and connection hold each user (`signaling_presence`), and the
// users who are away.
extension PostgresSignalingState {
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
}
