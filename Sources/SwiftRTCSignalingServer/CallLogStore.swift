import Foundation
import GRDB
import SwiftRTCSignaling

/// The signaling server's call log: one ``CallRecord`` per ended call, in an embedded SQLite
/// database (GRDB), queryable per user by role, end result and count.
///
/// Schema (migration `v1`):
///
///     call(id TEXT PRIMARY KEY, caller TEXT, conferenceType TEXT, started REAL, answered REAL NULL,
///          ended REAL, duration REAL, result TEXT, customItems TEXT /* JSON object */)
///     callParticipant(callId TEXT REFERENCES call ON DELETE CASCADE, user TEXT, role TEXT,
///                     position INTEGER, PRIMARY KEY(callId, user))
///
/// Times are Unix seconds. `callParticipant` holds the caller (role `caller`) and each callee
/// (role `callee`, in invitation order), so that "my calls as callee" is an indexed lookup.
public final class CallLogStore: Sendable {
    private let database: DatabaseQueue

    /// Opens (creating if needed) the database file at `path`; the folder must exist.
    /// - Throws: ``CallLogError/cannotOpen(path:_:)`` with SQLite's reason.
    public init(path: String) throws(CallLogError) {
        do {
            var configuration = Configuration()
            configuration.foreignKeysEnabled = true
            configuration.busyMode = .timeout(5)
            database = try DatabaseQueue(path: path, configuration: configuration)
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

    private static var migrator: DatabaseMigrator {
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
        return migrator
    }

    /// Stores an ended call (replacing a record with the same call id).
    public func insert(_ record: CallRecord) async throws(CallLogError) {
        do {
            try await database.write { db in
                try db.execute(sql: "DELETE FROM call WHERE id = ?", arguments: [record.callId])
                let items = String(decoding: try JSONEncoder().encode(record.customItems), as: UTF8.self)
                try db.execute(
                    sql: """
                    INSERT INTO call (id, caller, conferenceType, started, answered, ended, duration, result, customItems)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    arguments: [record.callId, record.caller, record.conferenceType.rawValue,
                                record.started.timeIntervalSince1970, record.answered?.timeIntervalSince1970,
                                record.ended.timeIntervalSince1970, record.duration, record.result.rawValue, items])
                try db.execute(sql: "INSERT INTO callParticipant (callId, user, role, position) VALUES (?, ?, 'caller', 0)",
                               arguments: [record.callId, record.caller])
                for (position, callee) in record.callees.enumerated() where callee != record.caller {
                    try db.execute(sql: "INSERT OR IGNORE INTO callParticipant (callId, user, role, position) VALUES (?, ?, 'callee', ?)",
                                   arguments: [record.callId, callee, position + 1])
                }
            }
        } catch {
            throw .failed("storing call \(record.callId): \(error)")
        }
    }

    /// The calls `user` took part in, newest (by end time) first.
    /// - Parameters:
    ///   - role: only calls the user made (`caller`) or received (`callee`); nil: both.
    ///   - result: only calls that ended this way; nil: any.
    ///   - limit: at most this many (clamped to 1...``SignalingLimits/maxCallLogLimit``).
    public func calls(of user: String, role: CallRole? = nil, result: CallEndResult? = nil,
                      limit: Int = SignalingLimits.defaultCallLogLimit) async throws(CallLogError) -> [CallRecord] {
        let limit = min(max(limit, 1), SignalingLimits.maxCallLogLimit)
        do {
            return try await database.read { db in
                var conditions = ["p.user = ?"]
                var arguments: StatementArguments = [user]
                if let role {
                    conditions.append("p.role = ?")
                    _ = arguments.append(contentsOf: [role.rawValue])
                }
                if let result {
                    conditions.append("c.result = ?")
                    _ = arguments.append(contentsOf: [result.rawValue])
                }
                _ = arguments.append(contentsOf: [limit])
                let rows = try Row.fetchAll(db, sql: """
                    SELECT c.* FROM call c JOIN callParticipant p ON p.callId = c.id
                    WHERE \(conditions.joined(separator: " AND "))
                    ORDER BY c.ended DESC, c.rowid DESC LIMIT ?
                    """, arguments: arguments)
                return try rows.map { row in try Self.record(from: row, db: db) }
            }
        } catch let error as CallLogError {
            throw error
        } catch {
            throw .failed("reading the call log of \(user): \(error)")
        }
    }

    /// The call with this id, if it is in the log.
    public func call(id: String) async throws(CallLogError) -> CallRecord? {
        do {
            return try await database.read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM call WHERE id = ?", arguments: [id]).map { try Self.record(from: $0, db: db) }
            }
        } catch let error as CallLogError {
            throw error
        } catch {
            throw .failed("reading call \(id): \(error)")
        }
    }

    /// How many calls the log holds.
    public func count() async throws(CallLogError) -> Int {
        do {
            return try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM call") ?? 0 }
        } catch {
            throw .failed("counting calls: \(error)")
        }
    }

    private static func record(from row: Row, db: Database) throws -> CallRecord {
        let id: String = row["id"]
        let callees = try String.fetchAll(db, sql: "SELECT user FROM callParticipant WHERE callId = ? AND role = 'callee' ORDER BY position",
                                          arguments: [id])
        let typeText: String = row["conferenceType"]
        let resultText: String = row["result"]
        guard let conferenceType = ConferenceType(rawValue: typeText), let result = CallEndResult(rawValue: resultText) else {
            throw CallLogError.failed("call \(id) has an unknown conference type '\(typeText)' or result '\(resultText)'")
        }
        let itemsText: String = row["customItems"]
        let items = (try? JSONDecoder().decode([String: String].self, from: Data(itemsText.utf8))) ?? [:]
        let answered: Double? = row["answered"]
        return CallRecord(callId: id, caller: row["caller"], callees: callees, conferenceType: conferenceType,
                          started: Date(timeIntervalSince1970: row["started"]),
                          answered: answered.map(Date.init(timeIntervalSince1970:)),
                          ended: Date(timeIntervalSince1970: row["ended"]), result: result, customItems: items)
    }
}

/// A call-log database failure: which file or operation, and SQLite's reason.
public enum CallLogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The database file cannot be opened or migrated.
    case cannotOpen(path: String, String)
    /// A read or write failed.
    case failed(String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): "cannot open the call log database \(path): \(reason)"
        case let .failed(reason): "call log: \(reason)"
        }
    }
}
