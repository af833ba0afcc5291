import Foundation
import SwiftRTCSignaling
import Testing

@testable import SwiftRTCSignalingServer

/// Call-log rows the server writes from the signaling it routes (the protocol messages are
/// driven directly here; SwiftRTCCalls' tests run the same flows with real bots), and the
/// queries by role, result and limit, over the protocol and the library API.
@Suite struct CallLogFlowTests {
    /// Alice calls the opponents; returns once each has the call.
    static func dial(_ session: String, _ alice: Peer, _ opponents: [Peer], type: ConferenceType = .video) async throws
    {
        try await alice.send(.call(session, from: "alice", to: opponents.map(\.user), type: type))
        for opponent in opponents {
            let call = try await opponent.next()
            #expect(call.type == .call)
        }
    }

    static func send(_ peer: Peer, _ session: String, to: [String], _ body: SignalingBody) async throws {
        try await peer.send(SignalingMessage(to: to, session: session, body: body))
    }

    @Test(arguments: Backend.allCases) func aCompletedCall(backend: Backend) async throws {
        let server = try await RunningServer.start(backend: backend)
        let alice = try await Peer.connect("alice", to: server)
        let bob = try await Peer.connect("bob", to: server)
        try await Self.dial("c1", alice, [bob])
        try await Self.send(bob, "c1", to: ["alice"], .accept(.init(sdp: "v=0\r\n")))
        #expect(try await alice.next().type == .accept)
        try await Self.send(alice, "c1", to: ["bob"], .customItems(.init(updated: ["topic": "demo", "x": "1"])))
        #expect(try await bob.next().type == .customItems)
        try await Self.send(bob, "c1", to: ["alice"], .customItems(.init(deleted: ["x"])))
        #expect(try await alice.next().type == .customItems)
        try await Task.sleep(for: .milliseconds(200))
        try await Self.send(bob, "c1", to: ["alice"], .hangUp(.init(userInfo: ["bye": "now"])))
        let hangUp = try await alice.next()
        #expect(hangUp.type == .hangUp)
        // The record is in the log by the time the other side hears of the end.
        let records = try await alice.callLog()
        #expect(records.count == 1)
        let record = try #require(records.first)
        #expect(record.callId == "c1")
        #expect(record.caller == "alice")
        #expect(record.callees == ["bob"])
        #expect(record.conferenceType == .video)
        #expect(record.result == .completed)
        #expect(record.customItems == ["topic": "demo"])
        let answered = try #require(record.answered)
        #expect(answered >= record.started)
        #expect(record.ended >= answered)
        #expect(record.duration >= 0.2)
        #expect(record.duration < 10)
        // Bob sees the same record, as callee.
        #expect(try await bob.callLog(role: .callee) == records)
        // Alice's own hang-up after the end still routes (the session is remembered).
        try await Self.send(alice, "c1", to: ["bob"], .hangUp(.init()))
        #expect(try await bob.next().type == .hangUp)
        #expect(try await server.server.callLog.count() == 1)
        await alice.close()
        await bob.close()
        await server.stop()
    }

    @Test(arguments: [
        ("declined", CallEndResult.declined),
        ("busy", .busy),
        ("no answer", .noAnswer),
        ("canceled", .canceled),
    ])
    func unansweredCalls(flow: String, expected: CallEndResult) async throws {
        let server = try await RunningServer.start(backend: .postgres)
        let alice = try await Peer.connect("alice", to: server)
        let bob = try await Peer.connect("bob", to: server)
        try await Self.dial("u1", alice, [bob], type: .audio)
        switch expected {
        case .declined, .busy:
            try await Self.send(
                bob,
                "u1",
                to: ["alice"],
                .reject(.init(userInfo: ["why": flow], busy: expected == .busy))
            )
            #expect(try await alice.next().type == .reject)
        case .noAnswer:
            // Dialing retries: the same call again, then the answer timeout.
            try await Self.dial("u1", alice, [bob], type: .audio)
            try await Self.send(alice, "u1", to: ["bob"], .hangUp(.init(result: .noAnswer)))
            #expect(try await bob.next().type == .hangUp)
        default:
            try await Self.send(alice, "u1", to: ["bob"], .hangUp(.init(result: .canceled)))
            #expect(try await bob.next().type == .hangUp)
        }
        let record = try #require(try await alice.callLog().first)
        #expect(record.result == expected)
        #expect(record.answered == nil)
        #expect(record.duration == 0)
        #expect(record.conferenceType == .audio)
        // The session is over: accepting now is refused.
        try await Self.send(bob, "u1", to: ["alice"], .accept(.init(sdp: "v=0\r\n")))
        #expect(try await bob.nextError().code == .forbidden)
        await alice.close()
        await bob.close()
        await server.stop()
    }

    @Test(arguments: Backend.allCases) func theServerEndsACallNobodyAnswers(backend: Backend) async throws {
        var configuration = SignalingServer.Configuration()
        configuration.ringTimeout = .milliseconds(400)
        let server = try await RunningServer.start(configuration, backend: backend)
        let alice = try await Peer.connect("alice", to: server)
        let bob = try await Peer.connect("bob", to: server)
        try await Self.dial("r1", alice, [bob])
        // Bob hears the end as the initiator's no-answer hang-up, sent by the server.
        let notice = try await bob.next(.hangUp, from: "alice")
        guard case let .hangUp(hangUp) = notice.body else {
            Issue.record("expected hangUp")
            return
        }
        #expect(hangUp.result == .noAnswer)
        #expect(try await alice.callLog(result: .noAnswer).map(\.callId) == ["r1"])
        // Re-dialing an ended session is refused.
        try await alice.send(.call("r1", from: "alice", to: ["bob"]))
        #expect(try await alice.nextError().code == .conflict)
        await alice.close()
        await bob.close()
        await server.stop()
    }

    /// Once the reconnect grace (here 1 s) has passed without a new login.
    @Test(arguments: Backend.allCases) func aDroppedConnectionEndsTheCallAsLost(backend: Backend) async throws {
        var configuration = SignalingServer.Configuration()
        configuration.reconnectGrace = .seconds(1)
        let server = try await RunningServer.start(configuration, backend: backend)
        let alice = try await Peer.connect("alice", to: server)
        let bob = try await Peer.connect("bob", to: server)
        try await Self.dial("l1", alice, [bob])
        try await Self.send(bob, "l1", to: ["alice"], .accept(.init(sdp: "v=0\r\n")))
        _ = try await alice.next()
        await bob.close()
        let notice = try await alice.next()
        #expect(notice.from == "bob")
        guard case let .hangUp(hangUp) = notice.body else {
            Issue.record("expected hangUp, got \(notice)")
            return
        }
        #expect(hangUp.result == .connectionLost)
        #expect(try await alice.callLog().first?.result == .connectionLost)
        await alice.close()
        await server.stop()
    }

    @Test(arguments: Backend.allCases) func aGroupCallEndsWhenTheLastButOneLeaves(backend: Backend) async throws {
        let server = try await RunningServer.start(backend: backend)
        let alice = try await Peer.connect("alice", to: server)
        let bob = try await Peer.connect("bob", to: server)
        let carol = try await Peer.connect("carol", to: server)
        let dave = try await Peer.connect("dave", to: server)
        try await Self.dial("g1", alice, [bob, carol, dave])
        try await Self.send(bob, "g1", to: ["alice", "carol", "dave"], .accept(.init(sdp: "v=0\r\n")))
        try await Self.send(carol, "g1", to: ["alice", "bob", "dave"], .accept(.init(sdp: "v=0\r\n")))
        try await Self.send(dave, "g1", to: ["alice", "bob", "carol"], .reject(.init()))
        // Each connection is ordered, different ones are not: alice hears them all first.
        var heard = Set<String>()
        while heard.count < 3 {
            let message = try await alice.next()
            if let from = message.from, message.type == .accept || message.type == .reject { heard.insert(from) }
        }
        // Opponents talk to each other (mesh offers) within the session.
        try await Self.send(bob, "g1", to: ["carol"], .offer(.init(sdp: "v=0\r\n")))
        try await Self.send(alice, "g1", to: ["bob", "carol"], .hangUp(.init()))
        try await Self.send(bob, "g1", to: ["carol"], .hangUp(.init()))
        // The two hang-ups come over different connections, so the server may take bob's
        // first: the call ends with whichever it takes last, and stores the record before that
        // one reaches carol. Once she has heard both, the log has it.
        var hungUp = Set<String>()
        while hungUp.count < 2 {
            let message = try await carol.next()
            if message.type == .hangUp, let from = message.from { hungUp.insert(from) }
        }
        #expect(try await carol.callLog().first?.result == .completed)
        let record = try #require(try await server.server.callLog.call(id: "g1"))
        #expect(record.callees == ["bob", "carol", "dave"])
        // Dave, who declined, still took part: the call is in his log too.
        #expect(try await dave.callLog(role: .callee).map(\.callId) == ["g1"])
        for peer in [alice, bob, carol, dave] { await peer.close() }
        await server.stop()
    }

    @Test(arguments: Backend.allCases) func queriesByRoleResultAndLimitShowOnlyTheUsersCalls(
        backend: Backend
    ) async throws {
        let server = try await RunningServer.start(backend: backend)
        let alice = try await Peer.connect("alice", to: server)
        let bob = try await Peer.connect("bob", to: server)
        let carol = try await Peer.connect("carol", to: server)
        // alice → bob completed, alice → bob declined, bob → alice canceled, alice → carol busy.
        try await Self.dial("q1", alice, [bob])
        try await Self.send(bob, "q1", to: ["alice"], .accept(.init(sdp: "v=0\r\n")))
        _ = try await alice.next()
        try await Self.send(alice, "q1", to: ["bob"], .hangUp(.init()))
        _ = try await bob.next()
        try await Self.dial("q2", alice, [bob])
        try await Self.send(bob, "q2", to: ["alice"], .reject(.init()))
        _ = try await alice.next()
        try await bob.send(.call("q3", from: "bob", to: ["alice"]))
        _ = try await alice.next()
        try await Self.send(bob, "q3", to: ["alice"], .hangUp(.init(result: .canceled)))
        _ = try await alice.next()
        try await Self.dial("q4", alice, [carol])
        try await Self.send(carol, "q4", to: ["alice"], .reject(.init(busy: true)))
        _ = try await alice.next()

        #expect(try await alice.callLog().map(\.callId) == ["q4", "q3", "q2", "q1"])
        #expect(try await alice.callLog(role: .caller).map(\.callId) == ["q4", "q2", "q1"])
        #expect(try await alice.callLog(role: .callee).map(\.callId) == ["q3"])
        #expect(try await alice.callLog(result: .declined).map(\.callId) == ["q2"])
        #expect(try await alice.callLog(role: .caller, result: .busy).map(\.callId) == ["q4"])
        #expect(try await alice.callLog(limit: 2).map(\.callId) == ["q4", "q3"])
        #expect(try await bob.callLog().map(\.callId) == ["q3", "q2", "q1"])
        #expect(try await carol.callLog().map(\.callId) == ["q4"])
        #expect(try await carol.callLog(role: .caller) == [])
        // The library API answers the same.
        let log = server.server.callLog
        #expect(try await log.calls(of: "bob", role: .caller).map(\.callId) == ["q3"])
        #expect(try await log.calls(of: "bob", result: .completed).map(\.callId) == ["q1"])
        #expect(try await log.calls(of: "dave") == [])
        for peer in [alice, bob, carol] { await peer.close() }
        await server.stop()
    }

    /// A session id names one call for good: once the ended session is forgotten (here after
    /// 100 ms), a `call` reusing its id is refused (409) and the record stays as it was.
    @Test(arguments: Backend.allCases) func aSessionIdThatWasUsedIsRefused(backend: Backend) async throws {
        var configuration = SignalingServer.Configuration()
        configuration.endedSessionRetention = .milliseconds(100)
        let server = try await RunningServer.start(configuration, backend: backend)
        let alice = try await Peer.connect("alice", to: server)
        let bob = try await Peer.connect("bob", to: server)
        try await Self.dial("once", alice, [bob])
        try await Self.send(bob, "once", to: ["alice"], .reject(.init()))
        #expect(try await alice.next().type == .reject)
        let first = try #require(try await server.server.callLog.call(id: "once"))
        #expect(first.result == .declined)
        // The server's sweep (every 250 ms) forgets the ended session.
        try await Task.sleep(for: .milliseconds(800))
        try await alice.send(.call("once", from: "alice", to: ["bob"]))
        let refusal = try await alice.nextError()
        #expect(refusal.code == .conflict)
        #expect(refusal.reason.contains("already used"), "\(refusal.reason)")
        #expect(try await bob.inbox.expectNothing() == nil)
        // Bob cannot answer a call that was refused.
        try await Self.send(bob, "once", to: ["alice"], .accept(.init(sdp: "v=0\r\n")))
        #expect(try await bob.nextError().code == .forbidden)
        #expect(try await server.server.callLog.call(id: "once") == first)
        #expect(try await server.server.callLog.count() == 1)
        await alice.close()
        await bob.close()
        await server.stop()
    }

    /// The call's row is in the database file from the start (with the answer once given),
    /// so that a server killed now would not lose it: another store on the same file (as the
    /// next server would open it) reads it while the call goes on.
    @Test func aCallInProgressIsInTheDatabaseFile() async throws {
        let path = CallLogStoreTests.temporaryDatabase()
        defer { CallLogStoreTests.removeDatabase(path) }
        let server = try await RunningServer.start(storage: .callLog(try SQLiteCallLog(path: path)))
        let alice = try await Peer.connect("alice", to: server)
        let bob = try await Peer.connect("bob", to: server)
        try await Self.dial("w1", alice, [bob])
        try await Self.send(bob, "w1", to: ["alice"], .accept(.init(sdp: "v=0\r\n")))
        #expect(try await alice.next().type == .accept)
        let reader = try SQLiteCallLog(path: path)
        #expect(try await reader.openCallIDs() == ["w1"])
        #expect(try await reader.call(id: "w1") == nil)
        try await Self.send(alice, "w1", to: ["bob"], .hangUp(.init()))
        #expect(try await bob.next().type == .hangUp)
        let record = try #require(try await reader.call(id: "w1"))
        #expect(record.result == .completed)
        #expect(record.answered != nil)
        #expect(try await reader.openCallIDs() == [])
        await alice.close()
        await bob.close()
        await server.stop()
    }

    /// Only the initiator's hang-up with `no_answer` withdraws a call (from those still being
    /// called), in the session rules and in the call log alike: an opponent's is that opponent
    /// leaving. Before, the call log took it as the end of the call for everyone it named.
    @Test(arguments: Backend.allCases) func anOpponentsNoAnswerHangUpIsOnlyItsLeaving(backend: Backend) async throws {
        let server = try await RunningServer.start(backend: backend)
        let alice = try await Peer.connect("alice", to: server)
        let bob = try await Peer.connect("bob", to: server)
        let carol = try await Peer.connect("carol", to: server)
        try await Self.dial("n1", alice, [bob, carol])
        try await Self.send(bob, "n1", to: ["alice"], .accept(.init(sdp: "v=0\r\n")))
        _ = try await alice.next(.accept, from: "bob")
        try await Self.send(bob, "n1", to: ["alice", "carol"], .hangUp(.init(result: .noAnswer)))
        _ = try await alice.next(.hangUp, from: "bob")
        _ = try await carol.next(.hangUp, from: "bob")
        // The call goes on between alice and carol, who may still answer.
        #expect(try await server.server.callLog.call(id: "n1") == nil)
        try await Self.send(carol, "n1", to: ["alice"], .accept(.init(sdp: "v=0\r\n")))
        _ = try await alice.next(.accept, from: "carol")
        #expect(try await server.server.callLog.openCallIDs() == ["n1"])
        try await Self.send(alice, "n1", to: ["carol"], .hangUp(.init()))
        _ = try await carol.next(.hangUp, from: "alice")
        #expect(try await server.server.callLog.call(id: "n1")?.result == .completed)
        for peer in [alice, bob, carol] { await peer.close() }
        await server.stop()
    }

    /// The initiator's `no_answer` withdraws the call only from the recipients still being
    /// called: an opponent who answered stays in the call (and in the log's call).
    @Test(arguments: Backend.allCases) func theInitiatorsNoAnswerSparesTheOpponentsWhoAnswered(
        backend: Backend
    ) async throws {
        let server = try await RunningServer.start(backend: backend)
        let alice = try await Peer.connect("alice", to: server)
        let bob = try await Peer.connect("bob", to: server)
        let carol = try await Peer.connect("carol", to: server)
        try await Self.dial("n2", alice, [bob, carol])
        try await Self.send(bob, "n2", to: ["alice"], .accept(.init(sdp: "v=0\r\n")))
        _ = try await alice.next(.accept, from: "bob")
        try await Self.send(alice, "n2", to: ["bob", "carol"], .hangUp(.init(result: .noAnswer)))
        _ = try await bob.next(.hangUp, from: "alice")
        _ = try await carol.next(.hangUp, from: "alice")
        #expect(try await server.server.callLog.call(id: "n2") == nil)
        // Bob is still in the call with alice: his messages route.
        try await Self.send(bob, "n2", to: ["alice"], .mediaSettings(.init(audioEnabled: false)))
        _ = try await alice.next(.mediaSettings, from: "bob")
        try await Self.send(bob, "n2", to: ["alice"], .hangUp(.init()))
        _ = try await alice.next(.hangUp, from: "bob")
        #expect(try await server.server.callLog.call(id: "n2")?.result == .completed)
        for peer in [alice, bob, carol] { await peer.close() }
        await server.stop()
    }
}
