import Logging
import PostgresNIO

/// The signaling server's tables in PostgreSQL, created and migrated by each server as it
/// starts; an advisory lock lets one server at a time do it.
enum PostgresSchema {
    /// The lock key (`pg_advisory_xact_lock`) migrations hold.
    static let migrationLock: Int64 = 0x5357_5254_4353_4947  // "SWRTCSIG"
    /// The lock key storing the users holds: one instance at a time compares its users file
    /// with the stored version and replaces them.
    static let credentialsLock: Int64 = 0x5357_5254_4355_5352  // "SWRTCUSR"

    /// Each version's statements, in order (version = index + 1).
    static let versions: [[PostgresQuery]] = [
        [
            """
            CREATE TABLE call (id text PRIMARY KEY, caller text NOT NULL, conference_type text NOT NULL,
                started double precision NOT NULL, answered double precision, updated double precision NOT NULL,
                ended double precision, duration double precision, result text, custom_items text NOT NULL,
                seq bigserial NOT NULL)
            """,
            "CREATE INDEX call_on_ended ON call (ended)",
            """
            CREATE TABLE call_participant (call_id text NOT NULL REFERENCES call ON DELETE CASCADE, "user" text NOT NULL,
                role text NOT NULL, position integer NOT NULL, PRIMARY KEY (call_id, "user"))
            """,
            #"CREATE INDEX call_participant_by_user ON call_participant ("user", role)"#,
            """
            CREATE TABLE signaling_instance (id text PRIMARY KEY, started timestamptz NOT NULL DEFAULT now(),
                heartbeat timestamptz NOT NULL DEFAULT now())
            """,
            """
            CREATE TABLE signaling_presence ("user" text PRIMARY KEY, instance text, connection bigint, away_since timestamptz)
            """,
            "CREATE INDEX signaling_presence_by_instance ON signaling_presence (instance)",
            """
            CREATE TABLE signaling_session (id text PRIMARY KEY, initiator text NOT NULL, participants text[] NOT NULL,
                started timestamptz NOT NULL, answered boolean NOT NULL, ended timestamptz, state text NOT NULL)
            """,
            "CREATE INDEX signaling_session_open ON signaling_session (initiator) WHERE ended IS NULL",
            "CREATE INDEX signaling_session_participants ON signaling_session USING gin (participants)",
            "CREATE INDEX signaling_session_ended ON signaling_session (ended)",
            """
            CREATE TABLE signaling_payload (id bigserial PRIMARY KEY, body text NOT NULL, created timestamptz NOT NULL DEFAULT now())
            """,
            #"CREATE TABLE signaling_credential (kind text NOT NULL, "user" text NOT NULL, secret text NOT NULL)"#,
        ],
        [
            // The version of the stored users (one row): the modification time of the file
            // they came from (Unix seconds) and the SHA-256 digest of the entries.
            """
            CREATE TABLE signaling_credential_version (id integer PRIMARY KEY CHECK (id = 1),
                modified double precision NOT NULL, digest text NOT NULL,
                stored timestamptz NOT NULL DEFAULT now(), instance text NOT NULL)
            """
        ],
    ]

    /// Runs `body` in a transaction; an error `body` throws comes out as itself (postgres-nio
    /// wraps it in a `PostgresTransactionError`).
    static func transaction<R: Sendable>(
        _ client: PostgresClient,
        logger: Logger,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending R
    ) async throws -> sending R {
        do {
            return try await client.withTransaction(logger: logger, isolation: isolation, body)
        } catch let error as PostgresTransactionError {
            if let thrown = error.closureError, error.rollbackError == nil { throw thrown }
            throw error
        }
    }

    /// Creates the tables, or brings them to the last version.
    static func migrate(_ client: PostgresClient, logger: Logger) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS signaling_schema (version integer NOT NULL)",
                logger: logger
            )
            var current = 0
            for try await version in try await connection.query("SELECT version FROM signaling_schema", logger: logger)
                .decode(Int.self)
            {
                current = version
            }
            guard current < versions.count else { return }
            for statement in versions[current...].joined() {
                try await connection.query(statement, logger: logger)
            }
            let latest = versions.count
            if current == 0 {
                try await connection.query("INSERT INTO signaling_schema (version) VALUES (\(latest))", logger: logger)
            } else {
                try await connection.query("UPDATE signaling_schema SET version = \(latest)", logger: logger)
            }
        }
    }
}
