import Foundation
import GRDB
import SwiftRTCSignaling

/// The call log of a server that runs alone (``CallLogStore`` in an embedded SQLite database,
/// GRDB, in WAL mode, or in memory): one row per call, written when the call starts, updated
/// when it is answered and when it ends; ended calls (``CallRecord``) are queryable per user by
/// role, end result and count.
///
/// Schema (migrations `v1`, `v2`):
///
///     call(id TEXT PRIMARY KEY, caller TEXT, conferenceType TEXT, started REAL, answered REAL NULL,
///          updated REAL, ended REAL NULL, duration REAL NULL, result TEXT NULL,
///          customItems TEXT /* JSON object */)
///     callParticipant(callId TEXT REFERENCES call ON DELETE CASCADE, user TEXT, role TEXT,
///                     position INTEGER, PRIMARY KEY(callId, user))
///
/// Times are Unix seconds. `updated` is the last moment the server wrote the row (start,
/// answer or end). A row with no `ended` is a call in progress, or one a server that was
/// killed never ended: ``closeInterruptedCalls()`` (run by ``SignalingServer/run(onListening:)``
/// before it listens) ends those as `connection_lost` at their `updated` time. `callParticipant`
/// holds the caller (role `caller`) and each callee (role `callee`, in invitation order), so
/// that "my calls as callee" is an indexed lookup.
///
/// A call id is used once: ``callStarted(id:caller:callees:conferenceType:at:)`` and
/// ``insert(_:)`` never replace a row (``CallLogError/duplicateCall(_:)``).
public final class SQLiteCallLog: CallLogStore {
    /// A `DatabasePool` (WAL: a commit survives the process being killed, and queries do not
    /// wait for writes) for a file; a `DatabaseQueue` in memory.
    private let database: any DatabaseWriter

    /// Opens (creating if needed) the database file at `path` in WAL mode; the folder must exist.
    /// - Throws: ``CallLogError/cannotOpen(path:_:)`` with SQLite's reason.
    public init(path: String) throws(CallLogError) {
        do {
            var configuration = Configuration()
            configuration.foreignKeysEnabled = true
            configuration.busyMode = .timeout(5)
            database = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(database)
        } catch {
            throw .cannotOpen(path: path, "\(error)")
        }
    }

    /// A store in memory, gone when released (tests, `callbot demo`).
    public init() {
        do {
            database = try DatabaseQueue()
            try Self.migrator.migrate(database)
        } catch {
            // An in-memory SQLite database with a fixed schema cannot fail to open.
            preconditionFailure("in-memory call log: \(error)")
        }
    }

    /// The schema's migrations (internal: the tests write a database of an earlier one).
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "call") { table in
                table.primaryKey("id", .text)
                table.column("caller", .text).notNull()
                table.column("conferenceType", .text).notNull()
                table.column("started", .double).notNull()
                table.column("answered", .double)
                table.column("ended", .double).notNull().indexed()
                table.column("duration", .double).notNull()
                table.column("result", .text).notNull()
                table.column("customItems", .text).notNull()
            }
            try db.create(table: "callParticipant") { table in
                table.column("callId", .text).notNull().references("call", onDelete: .cascade)
                table.column("user", .text).notNull()
                table.column("role", .text).notNull()
                table.column("position", .integer).notNull()
                table.primaryKey(["callId", "user"])
            }
            try db.create(index: "callParticipantByUser", on: "callParticipant", columns: ["user", "role"])
        }
        // Calls in progress: a row from the start, so `ended`, `duration` and `result` may be
        // null until the end; `updated` says when the row was last written. SQLite cannot drop
        // a NOT NULL constraint: the table is rebuilt (foreign keys are off during migrations).
        migrator.registerMigration("v2: calls in progress") { db in
            try db.create(table: "callV2") { table in
                table.primaryKey("id", .text)
                table.column("caller", .text).notNull()
                table.column("conferenceType", .text).notNull()
                table.column("started", .double).notNull()
                table.column("answered", .double)
                table.column("updated", .double).notNull()
                table.column("ended", .double)
                table.column("duration", .double)
                table.column("result", .text)
                table.column("customItems", .text).notNull()
            }
            try db.execute(
                sql: """
                    INSERT INTO callV2 (id, caller, conferenceType, started, answered, updated, ended, duration, result, customItems)
                    SELECT id, caller, conferenceType, started, answered, ended, ended, duration, result, customItems FROM call
                    """
            )
            try db.drop(table: "call")
            try db.rename(table: "callV2", to: "call")
            try db.create(index: "call_on_ended", on: "call", columns: ["ended"])
        }
        return migrator
    }

    /// Writes the row of a call that starts (no end yet), with its participants: a server
    /// killed during the call leaves it in the log.
    /// - Throws: ``CallLogError/duplicateCall(_:)`` when a call with this id is already in
    ///   the log (ended or not): a call id is used once.
    public func callStarted(
        id: String,
        caller: String,
        callees: [String],
        conferenceType: ConferenceType,
        at started: Date
    ) async throws(CallLogError) {
        do {
            try await database.write { db in
                guard try !Self.exists(id, db) else { throw CallLogError.duplicateCall(id) }
                try db.execute(
                    sql: """
                        INSERT INTO call (id, caller, conferenceType, started, updated, customItems)
                        VALUES (?, ?, ?, ?, ?, '{}')
                        """,
                    arguments: [
                        id, caller, conferenceType.rawValue, started.timeIntervalSince1970,
                        started.timeIntervalSince1970,
                    ]
                )
                try Self.insertParticipants(id, caller: caller, callees: callees, db)
            }
        } catch let error as CallLogError {
            throw error
        } catch {
            throw .failed("storing the start of call \(id): \(error)")
        }
    }

    /// Records the first answer of a call in progress (a later answer, or a call already
    /// ended, changes nothing).
    public func callAnswered(id: String, at answered: Date) async throws(CallLogError) {
        do {
            try await database.write { db in
                try db.execute(
                    sql: "UPDATE call SET answered = coalesce(answered, ?), updated = ? WHERE id = ? AND ended IS NULL",
                    arguments: [answered.timeIntervalSince1970, answered.timeIntervalSince1970, id]
                )
            }
        } catch {
            throw .failed("storing the answer of call \(id): \(error)")
        }
    }

    /// Stores an ended call: completes the row ``callStarted(id:caller:callees:conferenceType:at:)``
    /// wrote, or adds the whole call when it has none.
    /// - Throws: ``CallLogError/duplicateCall(_:)`` when the call id is already in the log as
    ///   an ended call: a record is never replaced.
    public func insert(_ record: CallRecord) async throws(CallLogError) {
        do {
            try await database.write { db in
                let items = String(decoding: try JSONEncoder().encode(record.customItems), as: UTF8.self)
                if let existing = try Row.fetchOne(
                    db,
                    sql: "SELECT ended FROM call WHERE id = ?",
                    arguments: [record.callId]
                ) {
                    guard (existing["ended"] as Double?) == nil else { throw CallLogError.duplicateCall(record.callId) }
                    // The row of the call's start: the end completes it (the participants are in).
                    try db.execute(
                        sql: """
                            UPDATE call SET answered = ?, updated = ?, ended = ?, duration = ?, result = ?, customItems = ?
                            WHERE id = ? AND ended IS NULL
                            """,
                        arguments: [
                            record.answered?.timeIntervalSince1970, record.ended.timeIntervalSince1970,
                            record.ended.timeIntervalSince1970, record.duration, record.result.rawValue, items,
                            record.callId,
                        ]
                    )
                } else {
                    try db.execute(
                        sql: """
                            INSERT INTO call (id, caller, conferenceType, started, answered, updated, ended, duration, result, customItems)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [
                            record.callId, record.caller, record.conferenceType.rawValue,
                            record.started.timeIntervalSince1970, record.answered?.timeIntervalSince1970,
                            record.ended.timeIntervalSince1970, record.ended.timeIntervalSince1970,
                            record.duration, record.result.rawValue, items,
                        ]
                    )
                    try Self.insertParticipants(record.callId, caller: record.caller, callees: record.callees, db)
                }
            }
        } catch let error as CallLogError {
            throw error
        } catch {
            throw .failed("storing call \(record.callId): \(error)")
        }
    }

    /// Ends every call a server left in progress (killed, or its machine stopped) as
    /// `connection_lost`, at the last moment its row was written; returns how many.
    /// ``SignalingServer/run(onListening:)`` calls it before it listens: do not call it while a
    /// server writes calls into this store.
    @discardableResult
    public func closeInterruptedCalls() async throws(CallLogError) -> Int {
        do {
            return try await database.write { db in
                try db.execute(
                    sql: """
                        UPDATE call SET ended = updated, result = ?,
                            duration = CASE WHEN answered IS NULL THEN 0 ELSE max(0, updated - answered) END
                        WHERE ended IS NULL
                        """,
                    arguments: [CallEndResult.connectionLost.rawValue]
                )
                return db.changesCount
            }
        } catch {
            throw .failed("ending interrupted calls: \(error)")
        }
    }

    /// The ids of the calls started and not ended: in progress, or left so by a server that
    /// was killed (until ``closeInterruptedCalls()``), oldest first.
    public func openCallIDs() async throws(CallLogError) -> [String] {
        do {
            return try await database.read { db in
                try String.fetchAll(db, sql: "SELECT id FROM call WHERE ended IS NULL ORDER BY started, rowid")
            }
        } catch {
            throw .failed("reading the calls in progress: \(error)")
        }
    }

    private static func exists(_ id: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM call WHERE id = ?)", arguments: [id]) ?? false
    }

    private static func insertParticipants(_ id: String, caller: String, callees: [String], _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO callParticipant (callId, user, role, position) VALUES (?, ?, 'caller', 0)",
            arguments: [id, caller]
        )
        for (position, callee) in callees.enumerated() where callee != caller {
            try db.execute(
                sql: "INSERT OR IGNORE INTO callParticipant (callId, user, role, position) VALUES (?, ?, 'callee', ?)",
                arguments: [id, callee, position + 1]
            )
        }
    }

    /// The calls `user` took part in, newest (by end time) first.
    /// - Parameters:
    ///   - role: only calls the user made (`caller`) or received (`callee`); nil: both.
    ///   - result: only calls that ended this way; nil: any.
    ///   - limit: at most this many (clamped to 1...``SignalingLimits/maxCallLogLimit``).
    ///   - offset: after skipping this many newer ones (clamped to 0...``SignalingLimits/maxCallLogOffset``).
    public func calls(
        of user: String,
        role: CallRole?,
        result: CallEndResult?,
        limit: Int,
        offset: Int
    ) async throws(CallLogError) -> [CallRecord] {
        let (limit, offset) = SignalingLimits.callLogPage(limit: limit, offset: offset)
        do {
            return try await database.read { db in
                var conditions = ["p.user = ?", "c.ended IS NOT NULL"]
                var arguments: StatementArguments = [user]
                if let role {
                    conditions.append("p.role = ?")
                    _ = arguments.append(contentsOf: [role.rawValue])
                }
                if let result {
                    conditions.append("c.result = ?")
                    _ = arguments.append(contentsOf: [result.rawValue])
                }
                _ = arguments.append(contentsOf: [limit, offset])
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT c.* FROM call c JOIN callParticipant p ON p.callId = c.id
                        WHERE \(conditions.joined(separator: " AND "))
                        ORDER BY c.ended DESC, c.rowid DESC LIMIT ? OFFSET ?
                        """,
                    arguments: arguments
                )
                return try rows.map { row in try Self.record(from: row, db: db) }
            }
        } catch let error as CallLogError {
            throw error
        } catch {
            throw .failed("reading the call log of \(user): \(error)")
        }
    }

    /// The ended call with this id, if it is in the log (a call in progress is not yet: see
    /// ``openCallIDs()``).
    public func call(id: String) async throws(CallLogError) -> CallRecord? {
        do {
            return try await database.read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM call WHERE id = ? AND ended IS NOT NULL", arguments: [id])
                    .map { try Self.record(from: $0, db: db) }
            }
        } catch let error as CallLogError {
            throw error
        } catch {
            throw .failed("reading call \(id): \(error)")
        }
    }

    /// How many ended calls the log holds.
    public func count() async throws(CallLogError) -> Int {
        do {
            return try await database.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM call WHERE ended IS NOT NULL") ?? 0
            }
        } catch {
            throw .failed("counting calls: \(error)")
        }
    }

    @discardableResult
    public func removeCalls(endedBefore cutoff: Date, keepingAtMost maxCalls: Int) async throws(CallLogError) -> Int {
        do {
            return try await database.write { db in
                try db.execute(
                    sql: "DELETE FROM call WHERE ended IS NOT NULL AND ended < ?",
                    arguments: [cutoff.timeIntervalSince1970]
                )
                var removed = db.changesCount
                try db.execute(
                    sql: """
                        DELETE FROM call WHERE id IN
                        (SELECT id FROM call WHERE ended IS NOT NULL ORDER BY ended DESC LIMIT -1 OFFSET ?)
                        """,
                    arguments: [max(0, maxCalls)]
                )
                removed += db.changesCount
                return removed
            }
        } catch {
            throw .failed("removing old calls: \(error)")
        }
    }

    private static func record(from row: Row, db: Database) throws -> CallRecord {
        let id: String = row["id"]
        let callees = try String.fetchAll(
            db,
            sql: "SELECT user FROM callParticipant WHERE callId = ? AND role = 'callee' ORDER BY position",
            arguments: [id]
        )
        let typeText: String = row["conferenceType"]
        let resultText: String = row["result"] ?? ""
        guard let conferenceType = ConferenceType(rawValue: typeText), let result = CallEndResult(rawValue: resultText)
        else {
            throw CallLogError.failed(
                "call \(id) has an unknown conference type '\(typeText)' or result '\(resultText)'"
            )
        }
        let itemsText: String = row["customItems"]
        let items = (try? JSONDecoder().decode([String: String].self, from: Data(itemsText.utf8))) ?? [:]
        let answered: Double? = row["answered"]
        return CallRecord(
            callId: id,
            caller: row["caller"],
            callees: callees,
            conferenceType: conferenceType,
            started: Date(timeIntervalSince1970: row["started"]),
            answered: answered.map(Date.init(timeIntervalSince1970:)),
            ended: Date(timeIntervalSince1970: row["ended"] ?? 0),
            result: result,
            customItems: items
        )
    }
}
