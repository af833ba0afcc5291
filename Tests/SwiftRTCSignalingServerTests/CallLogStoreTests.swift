import Foundation
import Testing
import SwiftRTCSignaling
@testable import SwiftRTCSignalingServer

/// The call log's SQLite store: records survive reopening the file, queries filter and order,
/// and a file that is not a database is a clear error.
@Suite struct CallLogStoreTests {
    static func record(_ id: String, caller: String, callees: [String], result: CallEndResult, endedAt: Double,
                       answered: Bool = true) -> CallRecord {
        let started = Date(timeIntervalSince1970: 1_700_000_000 + endedAt - 60)
        return CallRecord(callId: id, caller: caller, callees: callees, conferenceType: .audio, started: started,
                          answered: answered ? started.addingTimeInterval(5) : nil,
                          ended: Date(timeIntervalSince1970: 1_700_000_000 + endedAt), result: result,
                          customItems: answered ? ["note": id] : [:])
    }

    @Test func recordsSurviveReopeningTheFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("calls-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = Self.record("a", caller: "alice", callees: ["bob", "carol"], result: .completed, endedAt: 10)
        let second = Self.record("b", caller: "bob", callees: ["alice"], result: .noAnswer, endedAt: 20, answered: false)
        do {
            let store = try CallLogStore(path: path)
            try await store.insert(first)
            try await store.insert(second)
        }
        let reopened = try CallLogStore(path: path)
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
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-db-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try String(repeating: "this is not SQLite\n", count: 200).write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            _ = try CallLogStore(path: path)
        } throws: { error in
            "\(error)".hasPrefix("cannot open the call log database \(path)")
        }
        #expect(throws: CallLogError.self) { _ = try CallLogStore(path: "/nonexistent-folder/calls.sqlite") }
    }
}
