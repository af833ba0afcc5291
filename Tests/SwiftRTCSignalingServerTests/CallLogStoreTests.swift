import Foundation
import GRDB
import SwiftRTCSignaling
import Testing

@testable import SwiftRTCSignalingServer

/// The call log's SQLite store: records survive reopening the file, queries filter and order,
/// a call's row exists from its start (WAL) and survives the store being dropped without an
/// end, a call id is used once, a database of the first schema is migrated, and a file that
/// is not a database is a clear error.
@Suite struct CallLogStoreTests {
    static func record(
        _ id: String,
        caller: String,
        callees: [String],
        result: CallEndResult,
        endedAt: Double,
        answered: Bool = true
    ) -> CallRecord {
        let started = Date(timeIntervalSince1970: 1_700_000_000 + endedAt - 60)
        return CallRecord(
            callId: id,
            caller: caller,
            callees: callees,
            conferenceType: .audio,
            started: started,
            answered: answered ? started.addingTimeInterval(5) : nil,
            ended: Date(timeIntervalSince1970: 1_700_000_000 + endedAt),
            result: result,
            customItems: answered ? ["note": id] : [:]
        )
    }

    @Test func recordsSurviveReopeningTheFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("calls-\(UUID().uuidString).sqlite")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = Self.record("a", caller: "alice", callees: ["bob", "carol"], result: .completed, endedAt: 10)
        let second = Self.record(
            "b",
            caller: "bob",
            callees: ["alice"],
            result: .noAnswer,
            endedAt: 20,
            answered: false
        )
        do {
            let store = try SQLiteCallLog(path: path)
            try await store.insert(first)
            try await store.insert(second)
        }
        let reopened = try SQLiteCallLog(path: path)
        #expect(try await reopened.count() == 2)
        #expect(try await reopened.call(id: "a") == first)
        #expect(try await reopened.calls(of: "alice") == [second, first])
        #expect(try await reopened.calls(of: "carol", role: .callee) == [first])
        #expect(try await reopened.calls(of: "carol", role: .caller) == [])
        #expect(try await reopened.calls(of: "alice", role: .callee, result: .noAnswer) == [second])
        #expect(try await reopened.calls(of: "alice", limit: 1) == [second])
        #expect(first.duration == 55)
        #expect(second.duration == 0)
    }

    @Test func aFileThatIsNotADatabaseIsAClearError() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-db-\(UUID().uuidString).sqlite")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try String(repeating: "this is not SQLite\n", count: 200).write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            _ = try SQLiteCallLog(path: path)
        } throws: { error in
            "\(error)".hasPrefix("cannot open the call log database \(path)")
        }
        #expect(throws: CallLogError.self) { _ = try SQLiteCallLog(path: "/nonexistent-folder/calls.sqlite") }
    }

    static func temporaryDatabase(_ name: String = "calls") -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).sqlite").path
    }

    static func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// A server killed during a call leaves its row: the row is written (committed, in WAL
    /// mode) at the start and at the answer, and the next server ends it as `connection_lost`
    /// at the last moment it was written.
    @Test func aCallInProgressSurvivesTheStoreBeingDroppedWithoutItsEnd() async throws {
        let path = Self.temporaryDatabase()
        defer { Self.removeDatabase(path) }
        let started = Date(timeIntervalSince1970: 1_700_000_000)
        do {
            let store = try SQLiteCallLog(path: path)
            try await store.callStarted(
                id: "k1",
                caller: "alice",
                callees: ["bob", "carol"],
                conferenceType: .video,
                at: started
            )
            try await store.callAnswered(id: "k1", at: started.addingTimeInterval(4))
            try await store.callAnswered(id: "k1", at: started.addingTimeInterval(9))
            // WAL mode: the log beside the file.
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
            #expect(try await store.openCallIDs() == ["k1"])
            // Dropped here without the call's end, as a killed server would leave it.
        }
        let reopened = try SQLiteCallLog(path: path)
        #expect(try await reopened.openCallIDs() == ["k1"])
        // Queries answer ended calls only.
        #expect(try await reopened.call(id: "k1") == nil)
        #expect(try await reopened.count() == 0)
        #expect(try await reopened.calls(of: "alice") == [])
        #expect(try await reopened.closeInterruptedCalls() == 1)
        #expect(try await reopened.closeInterruptedCalls() == 0)
        #expect(try await reopened.openCallIDs() == [])
        let record = try #require(try await reopened.call(id: "k1"))
        #expect(
            record
                == CallRecord(
                    callId: "k1",
                    caller: "alice",
                    callees: ["bob", "carol"],
                    conferenceType: .video,
                    started: started,
                    answered: started.addingTimeInterval(4),
                    ended: started.addingTimeInterval(9),
                    result: .connectionLost
                )
        )
        #expect(try await reopened.calls(of: "carol", role: .callee) == [record])
    }

    /// A call's end completes the row of its start; a call id is used once: a second start or
    /// a second record of the same id is refused, and the first record stays as it was.
    @Test func aCallIdIsUsedOnceAndARecordIsNeverReplaced() async throws {
        let store = SQLiteCallLog()
        let first = Self.record("once", caller: "alice", callees: ["bob"], result: .completed, endedAt: 10)
        try await store.callStarted(
            id: "once",
            caller: "alice",
            callees: ["bob"],
            conferenceType: .audio,
            at: first.started
        )
        await #expect(throws: CallLogError.duplicateCall("once")) {
            try await store.callStarted(
                id: "once",
                caller: "mallory",
                callees: ["bob"],
                conferenceType: .audio,
                at: Date()
            )
        }
        try await store.insert(first)
        #expect(try await store.call(id: "once") == first)
        #expect(try await store.openCallIDs() == [])
        let second = Self.record(
            "once",
            caller: "bob",
            callees: ["alice"],
            result: .declined,
            endedAt: 20,
            answered: false
        )
        await #expect(throws: CallLogError.duplicateCall("once")) { try await store.insert(second) }
        await #expect(throws: CallLogError.duplicateCall("once")) {
            try await store.callStarted(
                id: "once",
                caller: "alice",
                callees: ["bob"],
                conferenceType: .audio,
                at: Date()
            )
        }
        #expect(try await store.call(id: "once") == first)
        #expect(try await store.count() == 1)
        // An answer after the end changes nothing.
        try await store.callAnswered(id: "once", at: Date())
        #expect(try await store.call(id: "once") == first)
    }

    /// A database written by the first schema (every row an ended call) opens, and its calls
    /// read as they were.
    @Test func aDatabaseOfTheFirstSchemaIsMigrated() async throws {
        let path = Self.temporaryDatabase("calls-v1")
        defer { Self.removeDatabase(path) }
        let old = Self.record("v1-call", caller: "alice", callees: ["bob", "carol"], result: .completed, endedAt: 30)
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteCallLog.migrator.migrate(queue, upTo: "v1")
            try await queue.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO call (id, caller, conferenceType, started, answered, ended, duration, result, customItems)
                        VALUES (?, 'alice', 'audio', ?, ?, ?, ?, 'completed', '{"note":"v1-call"}')
                        """,
                    arguments: [
                        old.callId, old.started.timeIntervalSince1970, old.answered?.timeIntervalSince1970,
                        old.ended.timeIntervalSince1970, old.duration,
                    ]
                )
                for (user, role, position) in [("alice", "caller", 0), ("bob", "callee", 1), ("carol", "callee", 2)] {
                    try db.execute(
                        sql: "INSERT INTO callParticipant (callId, user, role, position) VALUES (?, ?, ?, ?)",
                        arguments: [old.callId, user, role, position]
                    )
                }
            }
        }
        let store = try SQLiteCallLog(path: path)
        #expect(try await store.call(id: "v1-call") == old)
        #expect(try await store.calls(of: "carol", role: .callee) == [old])
        #expect(try await store.openCallIDs() == [])
        await #expect(throws: CallLogError.duplicateCall("v1-call")) {
            try await store.callStarted(
                id: "v1-call",
                caller: "alice",
                callees: ["bob"],
                conferenceType: .audio,
                at: Date()
            )
        }
    }
}
