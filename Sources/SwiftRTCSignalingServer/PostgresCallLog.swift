import Foundation
import Logging
import PostgresNIO
import SwiftRTCSignaling

/// The call log in PostgreSQL (``CallLogStore``), shared by the server instances of one
/// database (``PostgresStorage``). The same rows as ``SQLiteCallLog``'s, in snake case:
///
///     call(id text PRIMARY KEY, caller, conference_type, started, answered NULL, updated,
///          ended NULL, duration NULL, result NULL, custom_items /* JSON */, seq bigserial)
///     call_participant(call_id REFERENCES call, "user", role, position, PRIMARY KEY(call_id, "user"))
public final class PostgresCallLog: CallLogStore {
    private let client: PostgresClient
    private let logger = Logger(label: "swiftrtc.signaling.postgres") { _ in SwiftLogNoOpLogHandler() }

    init(client: PostgresClient) {
        self.client = client
    }

    public func callStarted(
        id: String,
        caller: String,
        callees: [String],
        conferenceType: ConferenceType,
        at started: Date
    ) async throws(CallLogError) {
        let time = started.timeIntervalSince1970
        try await run("storing the start of call \(id)") { [logger] in
            try await PostgresSchema.transaction(self.client, logger: logger) { connection in
                var inserted = false
                for try await _ in try await connection.query(
                    """
                    INSERT INTO call (id, caller, conference_type, started, updated, custom_items)
                    VALUES (\(id), \(caller), \(conferenceType.rawValue), \(time), \(time), '{}')
                    ON CONFLICT (id) DO NOTHING RETURNING id
                    """,
                    logger: logger
                ) { inserted = true }
                guard inserted else { throw CallLogError.duplicateCall(id) }
                try await Self.insertParticipants(id, caller: caller, callees: callees, connection, logger)
            }
        }
    }

    public func callAnswered(id: String, at answered: Date) async throws(CallLogError) {
        let time = answered.timeIntervalSince1970
        try await run("storing the answer of call \(id)") { [client, logger] in
            _ = try await client.query(
                """
                UPDATE call SET answered = coalesce(answered, \(time)), updated = \(time) WHERE id = \(id) AND ended IS NULL
                """,
                logger: logger
            )
        }
    }

    public func insert(_ record: CallRecord) async throws(CallLogError) {
        let items = String(decoding: (try? JSONEncoder().encode(record.customItems)) ?? Data("{}".utf8), as: UTF8.self)
        let answered = record.answered?.timeIntervalSince1970
        let ended = record.ended.timeIntervalSince1970
        try await run("storing call \(record.callId)") { [logger] in
            try await PostgresSchema.transaction(self.client, logger: logger) { connection in
                var existing: Double?? = nil
                for try await ended in try await connection.query(
                    "SELECT ended FROM call WHERE id = \(record.callId) FOR UPDATE",
                    logger: logger
                ).decode(Double?.self) {
                    existing = .some(ended)
                }
                switch existing {
                case .some(.some):
                    throw CallLogError.duplicateCall(record.callId)
                case .some(.none):
                    try await connection.query(
                        """
                        UPDATE call SET answered = \(answered), updated = \(ended), ended = \(ended), duration = \(record.duration),
                            result = \(record.result.rawValue), custom_items = \(items)
                        WHERE id = \(record.callId)
                        """,
                        logger: logger
                    )
                case .none:
                    try await connection.query(
                        """
                        INSERT INTO call (id, caller, conference_type, started, answered, updated, ended, duration, result, custom_items)
                        VALUES (\(record.callId), \(record.caller), \(record.conferenceType.rawValue), \(record.started.timeIntervalSince1970),
                            \(answered), \(ended), \(ended), \(record.duration), \(record.result.rawValue), \(items))
                        """,
                        logger: logger
                    )
                    try await Self.insertParticipants(
                        record.callId,
                        caller: record.caller,
                        callees: record.callees,
                        connection,
                        logger
                    )
                }
            }
        }
    }

    @discardableResult
    public func closeInterruptedCalls() async throws(CallLogError) -> Int {
        try await run("ending interrupted calls") { [client, logger] in
            var count = 0
            for try await _ in try await client.query(
                """
                UPDATE call SET ended = updated, result = \(CallEndResult.connectionLost.rawValue),
                    duration = CASE WHEN answered IS NULL THEN 0 ELSE greatest(0, updated - answered) END
                WHERE ended IS NULL RETURNING id
                """,
                logger: logger
            ) { count += 1 }
            return count
        }
    }

    public func openCallIDs() async throws(CallLogError) -> [String] {
        try await run("reading the calls in progress") { [client, logger] in
            var ids: [String] = []
            for try await id in try await client.query(
                "SELECT id FROM call WHERE ended IS NULL ORDER BY started, seq",
                logger: logger
            ).decode(String.self) { ids.append(id) }
            return ids
        }
    }

    public func calls(
        of user: String,
        role: CallRole?,
        result: CallEndResult?,
        limit: Int,
        offset: Int
    ) async throws(CallLogError) -> [CallRecord] {
        let (limit, offset) = SignalingLimits.callLogPage(limit: limit, offset: offset)
        return try await run("reading the call log of \(user)") { [client, logger] in
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.columns) FROM call c JOIN call_participant p ON p.call_id = c.id
                WHERE p."user" = \(user) AND c.ended IS NOT NULL AND (\(role?.rawValue)::text IS NULL OR p.role = \(role?.rawValue))
                    AND (\(result?.rawValue)::text IS NULL OR c.result = \(result?.rawValue))
                ORDER BY c.ended DESC, c.seq DESC LIMIT \(limit) OFFSET \(offset)
                """,
                logger: logger
            )
            return try await Self.records(rows)
        }
    }

    public func call(id: String) async throws(CallLogError) -> CallRecord? {
        try await run("reading call \(id)") { [client, logger] in
            let rows = try await client.query(
                "SELECT \(unescaped: Self.columns) FROM call c WHERE c.id = \(id) AND c.ended IS NOT NULL",
                logger: logger
            )
            return try await Self.records(rows).first
        }
    }

    @discardableResult
    public func removeCalls(endedBefore cutoff: Date, keepingAtMost maxCalls: Int) async throws(CallLogError) -> Int {
        let time = cutoff.timeIntervalSince1970
        let keep = max(0, maxCalls)
        return try await run("removing old calls") { [client, logger] in
            var removed = 0
            for try await _ in try await client.query(
                "DELETE FROM call WHERE ended IS NOT NULL AND ended < \(time) RETURNING id",
                logger: logger
            ) { removed += 1 }
            for try await _ in try await client.query(
                """
                DELETE FROM call WHERE id IN
                (SELECT id FROM call WHERE ended IS NOT NULL ORDER BY ended DESC OFFSET \(keep)) RETURNING id
                """,
                logger: logger
            ) { removed += 1 }
            return removed
        }
    }

    public func count() async throws(CallLogError) -> Int {
        try await run("counting calls") { [client, logger] in
            var count = 0
            for try await value in try await client.query(
                "SELECT count(*) FROM call WHERE ended IS NOT NULL",
                logger: logger
            ).decode(Int.self) {
                count = value
            }
            return count
        }
    }

    /// A record's columns, the callees in invitation order among them.
    private static let columns = """
        c.id, c.caller, c.conference_type, c.started, c.answered, c.ended, c.result, c.custom_items,
        ARRAY(SELECT q."user" FROM call_participant q WHERE q.call_id = c.id AND q.role = 'callee' ORDER BY q.position)
        """

    private static func records(_ rows: PostgresRowSequence) async throws -> [CallRecord] {
        var records: [CallRecord] = []
        for try await (id, caller, type, started, answered, ended, result, items, callees)
            in rows.decode((String, String, String, Double, Double?, Double, String, String, [String]).self)
        {
            guard let conferenceType = ConferenceType(rawValue: type), let result = CallEndResult(rawValue: result)
            else {
                throw CallLogError.failed("call \(id) has an unknown conference type '\(type)' or result '\(result)'")
            }
            let customItems = (try? JSONDecoder().decode([String: String].self, from: Data(items.utf8))) ?? [:]
            records.append(
                CallRecord(
                    callId: id,
                    caller: caller,
                    callees: callees,
                    conferenceType: conferenceType,
                    started: Date(timeIntervalSince1970: started),
                    answered: answered.map(Date.init(timeIntervalSince1970:)),
                    ended: Date(timeIntervalSince1970: ended),
                    result: result,
                    customItems: customItems
                )
            )
        }
        return records
    }

    private static func insertParticipants(
        _ id: String,
        caller: String,
        callees: [String],
        _ connection: PostgresConnection,
        _ logger: Logger
    ) async throws {
        try await connection.query(
            #"INSERT INTO call_participant (call_id, "user", role, position) VALUES (\#(id), \#(caller), 'caller', 0)"#,
            logger: logger
        )
        for (position, callee) in callees.enumerated() where callee != caller {
            try await connection.query(
                #"""
                INSERT INTO call_participant (call_id, "user", role, position) VALUES (\#(id), \#(callee), 'callee', \#(position + 1))
                ON CONFLICT DO NOTHING
                """#,
                logger: logger
            )
        }
    }

    /// Runs `body`, turning its errors into ``CallLogError``s that say what was being done.
    private func run<T: Sendable>(
        _ what: String,
        _ body: @Sendable () async throws -> T
    ) async throws(CallLogError) -> T {
        do {
            return try await body()
        } catch let error as CallLogError {
            throw error
        } catch {
            throw .failed("\(what): \(String(reflecting: error))")
        }
    }
}
