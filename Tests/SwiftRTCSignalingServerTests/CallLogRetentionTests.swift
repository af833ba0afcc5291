import Foundation
import SwiftRTCSignaling
import Testing

@testable import SwiftRTCSignalingServer

/// The call log keeps ended calls for a while and up to a number (``CallLogRetention``), and
/// one user cannot start calls faster than ``SignalingServer/Configuration/callsPerMinutePerUser``:
/// an authenticated user can no longer grow the log (in memory without `--database`) without
/// bound, as they could at some 33 calls a second.
@Suite struct CallLogRetentionTests {
    /// Both stores remove ended calls past the age, then the oldest past the count; a call in
    /// progress stays, and so do the participants of the calls kept (only theirs).
    @Test(arguments: Backend.allCases) func theStoresRemoveOldCallsAndTheOldestBeyondTheCount(
        backend: Backend
    )
        async throws
    {
        // A running server: its PostgreSQL client runs and the schema is there.
        let server = try await RunningServer.start(backend: backend)
        let log = server.server.callLog
        let prefix = "retention-\(UUID().uuidString.prefix(8))-"
        let base = Date().addingTimeInterval(-1_000)
        // Ten ended calls, one every 10 s; the first three ended before the cutoff.
        for index in 0..<10 {
            let ended = base.addingTimeInterval(Double(index) * 10)
            try await log.insert(
                CallRecord(
                    callId: "\(prefix)\(index)",
                    caller: "alice",
                    callees: ["bob"],
                    conferenceType: .audio,
                    started: ended.addingTimeInterval(-5),
                    answered: nil,
                    ended: ended,
                    result: .noAnswer,
                    customItems: [:]
                )
            )
        }
        try await log.callStarted(
            id: "\(prefix)open",
            caller: "alice",
            callees: ["bob"],
            conferenceType: .audio,
            at: base.addingTimeInterval(-10_000)
        )
        let before = try await log.count()
        let removed = try await log.removeCalls(endedBefore: base.addingTimeInterval(25), keepingAtMost: before - 5)
        // 3 too old, then 2 more beyond the count (the oldest of the rest).
        #expect(removed == 5)
        #expect(try await log.count() == before - 5)
        for index in 0..<5 { #expect(try await log.call(id: "\(prefix)\(index)") == nil, "call \(index) stayed") }
        for index in 5..<10 {
            let kept = try #require(try await log.call(id: "\(prefix)\(index)"), "call \(index) was removed")
            #expect(kept.callees == ["bob"])
        }
        #expect(try await log.openCallIDs().contains("\(prefix)open"))
        // A call removed is gone from its users' logs too.
        let bobs = try await log.calls(of: "bob", limit: SignalingLimits.maxCallLogLimit).map(\.callId)
        #expect(!bobs.contains("\(prefix)0") && bobs.contains("\(prefix)9"))
        // Nothing more to remove: nothing is.
        #expect(try await log.removeCalls(endedBefore: base, keepingAtMost: before) == 0)
        await server.stop()
    }

    /// A server whose log keeps 5 calls: after 12 calls it holds at most 5 (+ the prune
    /// interval), the newest among them.
    @Test func theServerPrunesItsLogAsCallsEnd() async throws {
        var configuration = SignalingServer.Configuration()
        configuration.callLogRetention = CallLogRetention(maxCalls: 5)
        #expect(configuration.callLogRetention.pruneInterval == 1)
        let server = try await RunningServer.start(configuration)
        let alice = try await Peer.connect("alice", to: server)
        let bob = try await Peer.connect("bob", to: server)
        for index in 0..<12 {
            try await CallLogFlowTests.dial("r\(index)", alice, [bob], type: .audio)
            try await CallLogFlowTests.send(alice, "r\(index)", to: ["bob"], .hangUp(.init()))
            #expect(try await bob.next().type == .hangUp)
        }
        // The twelfth call's start pruned the log to 5 calls; its end is the sixth.
        let records = try await alice.callLog(limit: 20)
        #expect(records.count == 6, "\(records.map(\.callId))")
        #expect(records.first?.callId == "r11")
        #expect(try await server.server.callLog.count() == 6)
        await alice.close()
        await bob.close()
        await server.stop()
    }

    /// Six calls a minute (two at once): alice's third call at once is refused (429) and
    /// counted, a re-sent call of her session still routes, and bob's calls have their own budget.
    @Test func aUserStartingCallsTooFastIsRefused() async throws {
        var configuration = SignalingServer.Configuration()
        configuration.callsPerMinutePerUser = 6
        let server = try await RunningServer.start(configuration)
        let alice = try await Peer.connect("alice", to: server)
        let bob = try await Peer.connect("bob", to: server)
        let carol = try await Peer.connect("carol", to: server)
        try await CallLogFlowTests.dial("f1", alice, [bob])
        try await CallLogFlowTests.dial("f2", alice, [carol])
        try await alice.send(.call("f3", from: "alice", to: ["bob"]))
        let refused = try await alice.nextError()
        #expect(refused.code == .tooManyMessages)
        #expect(refused.reason.contains("6 calls in the last minute"), "\(refused.reason)")
        #expect(server.server.counters.callsOverRateLimit == 1)
        // The refused call left nothing: no session, no row.
        #expect(try await server.server.callLog.openCallIDs().contains("f3") == false)
        // Alice re-sends her first call (as clients do until answered): it routes.
        try await alice.send(.call("f1", from: "alice", to: ["bob"]))
        #expect(try await bob.next().type == .call)
        // Bob's budget is his own.
        try await bob.send(.call("f4", from: "bob", to: ["carol"]))
        #expect(try await carol.next().type == .call)
        #expect(server.server.counters.callsOverRateLimit == 1)
        await alice.close()
        await bob.close()
        await carol.close()
        await server.stop()
    }
}
