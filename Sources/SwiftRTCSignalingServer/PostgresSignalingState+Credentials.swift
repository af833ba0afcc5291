import CoreMetrics
import Foundation
import Logging
import PostgresNIO
import SwiftRTCCore
import SwiftRTCSignaling
import Synchronization

// Users: the credentials every instance loads, stored once for all.
extension PostgresSignalingState {
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
}
