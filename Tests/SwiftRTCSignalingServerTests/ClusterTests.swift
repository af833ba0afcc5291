import Foundation
import PostgresTestSupport
import SwiftRTCSignaling
import Testing

@testable import SwiftRTCSignalingServer

/// Three server instances in this process on one real PostgreSQL database behave as one
/// server: messages cross instances (small ones by NOTIFY, large ones through the payload
/// table) in order, every session rule holds whichever instance a member is on, a login
/// elsewhere replaces the older connection, and a user whose connection dropped is back in
/// their call after logging in to another instance within the reconnect grace.
@Suite struct ClusterTests {
    /// Three instances on a new database.
    static func cluster(_ configuration: SignalingServer.Configuration = .init()) async throws -> [RunningServer] {
        let url = try await PostgresTestServer.shared().database()
        var servers: [RunningServer] = []
        for _ in 0..<3 {
            servers.append(
                try await RunningServer.start(configuration, storage: .postgres(try PostgresStorage(url: url)))
            )
        }
        return servers
    }

    static func stop(_ servers: [RunningServer], _ peers: [Peer]) async {
        for peer in peers { await peer.close() }
        for server in servers { await server.stop() }
    }

    @Test func aMeshAcrossThreeInstancesRoutesEveryPairInOrder() async throws {
        let servers = try await Self.cluster()
        let alice = try await Peer.connect("alice", to: servers[0])
        let bob = try await Peer.connect("bob", to: servers[1])
        let carol = try await Peer.connect("carol", to: servers[2])
        let dave = try await Peer.connect("dave", to: servers[0])
        let everyone = [alice, bob, carol, dave]
        try await CallLogFlowTests.dial("mesh", alice, [bob, carol, dave])
        for opponent in [bob, carol, dave] {
            try await CallLogFlowTests.send(opponent, "mesh", to: ["alice"], .accept(.init(sdp: "v=0\r\n")))
            #expect(try await alice.next(.accept, from: opponent.user).session == "mesh")
        }
        // Every pair, both ways: an SDP over NOTIFY's payload limit, then 20 candidates in order.
        let bigSDP = "v=0\r\n" + String(repeating: "a=x-filler:0123456789abcdef0123456789abcdef\r\n", count: 400)
        #expect(bigSDP.utf8.count > PostgresSignalingState.maxNotifyBytes)
        for sender in everyone {
            for receiver in everyone where receiver !== sender {
                try await CallLogFlowTests.send(sender, "mesh", to: [receiver.user], .offer(.init(sdp: bigSDP)))
                for index in 0..<20 {
                    try await CallLogFlowTests.send(
                        sender,
                        "mesh",
                        to: [receiver.user],
                        .candidate(
                            .init(
                                candidate: "candidate:\(index) 1 udp 1 127.0.0.1 \(9000 + index) typ host",
                                sdpMid: "0",
                                sdpMLineIndex: 0
                            )
                        )
                    )
                }
            }
        }
        for receiver in everyone {
            // 21 messages from each of the 3 others, interleaved; per sender, in order.
            var bySender: [String: [SignalingMessage]] = [:]
            for _ in 0..<63 {
                let message = try await receiver.next()
                bySender[message.from ?? "", default: []].append(message)
            }
            for sender in everyone where sender !== receiver {
                let messages = bySender[sender.user] ?? []
                guard messages.count == 21, case let .offer(offer) = messages[0].body else {
                    Issue.record("\(sender.user) → \(receiver.user): \(messages.map(\.type.rawValue))")
                    continue
                }
                #expect(offer.sdp == bigSDP)
                let ports = messages.dropFirst().compactMap { message -> Int? in
                    guard case let .candidate(body) = message.body else { return nil }
                    return Int(body.candidate.split(separator: " ")[5])
                }
                #expect(ports == Array(9000..<9020), "\(sender.user) → \(receiver.user)")
            }
        }
        try await CallLogFlowTests.send(carol, "mesh", to: ["alice", "bob", "dave"], .hangUp(.init()))
        try await CallLogFlowTests.send(bob, "mesh", to: ["alice", "dave"], .hangUp(.init()))
        try await CallLogFlowTests.send(dave, "mesh", to: ["alice"], .hangUp(.init()))
        _ = try await alice.next(.hangUp, from: "dave")
        // The record, written by whichever instance saw the end, is the same from every instance.
        // The three hang-ups are handled by three instances at once, in any order: the last of
        // them (not necessarily Dave's) ends the call.
        var stored: CallRecord?
        let deadline = ContinuousClock.now + .seconds(10)
        while stored == nil, ContinuousClock.now < deadline {
            stored = try await servers[2].server.callLog.call(id: "mesh")
            if stored == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let record = try #require(stored)
        #expect(record.caller == "alice" && record.callees == ["bob", "carol", "dave"] && record.result == .completed)
        #expect(try await carol.callLog(role: .callee).map(\.callId) == ["mesh"])
        await Self.stop(servers, everyone)
    }

    @Test func sessionRulesHoldAcrossInstances() async throws {
        let servers = try await Self.cluster()
        let alice = try await Peer.connect("alice", to: servers[0])
        let bob = try await Peer.connect("bob", to: servers[1])
        let carol = try await Peer.connect("carol", to: servers[2])
        try await CallLogFlowTests.dial("rules", alice, [bob])
        // Carol, on a third instance, was not invited: she cannot send into the session,
        // answer it, take its id, or address its members through it.
        try await CallLogFlowTests.send(carol, "rules", to: ["alice"], .offer(.init(sdp: "v=0\r\n")))
        #expect(try await carol.nextError().code == .forbidden)
        try await CallLogFlowTests.send(carol, "rules", to: ["alice"], .accept(.init(sdp: "v=0\r\n")))
        #expect(try await carol.nextError().code == .forbidden)
        try await carol.send(.call("rules", from: "carol", to: ["alice"]))
        #expect(try await carol.nextError().code == .conflict)
        // Bob cannot act as Alice, nor call on her session.
        try await bob.send(
            SignalingMessage(from: "alice", to: ["carol"], session: "rules", body: .offer(.init(sdp: "v=0\r\n")))
        )
        #expect(try await bob.nextError().code == .forbidden)
        try await bob.send(.call("rules", from: "bob", to: ["alice"]))
        #expect(try await bob.nextError().code == .conflict)
        // Nor invite Carol into it; the initiator does not accept her own call.
        try await CallLogFlowTests.send(bob, "rules", to: ["carol"], .offer(.init(sdp: "v=0\r\n")))
        #expect(try await bob.nextError().code == .forbidden)
        try await CallLogFlowTests.send(alice, "rules", to: ["bob"], .accept(.init(sdp: "v=0\r\n")))
        #expect(try await alice.nextError().code == .forbidden)
        #expect(try await carol.inbox.expectNothing() == nil)
        await Self.stop(servers, [alice, bob, carol])
    }

    @Test func aLoginOnAnotherInstanceReplacesTheOlderConnection() async throws {
        let servers = try await Self.cluster()
        let first = try await Peer.connect("bob", to: servers[0])
        let second = try await Peer.connect("bob", to: servers[1])
        let replaced = try await first.nextError()
        #expect(replaced.code == .conflict)
        try await first.inbox.waitFinished()
        let alice = try await Peer.connect("alice", to: servers[2])
        try await alice.send(.call("moved", from: "alice", to: ["bob"]))
        #expect(try await second.next().type == .call)
        await Self.stop(servers, [alice, second])
    }

    /// Bob's connection drops mid-call; he logs in to another instance within the grace and
    /// is still in the call: messages reach him there, and the call ends completed.
    @Test func aUserWhoLogsInElsewhereWithinTheGraceKeepsTheCall() async throws {
        let servers = try await Self.cluster()
        let alice = try await Peer.connect("alice", to: servers[0])
        let bob = try await Peer.connect("bob", to: servers[1])
        try await CallLogFlowTests.dial("grace", alice, [bob])
        try await CallLogFlowTests.send(bob, "grace", to: ["alice"], .accept(.init(sdp: "v=0\r\n")))
        _ = try await alice.next(.accept, from: "bob")
        await bob.close()
        try await Task.sleep(for: .milliseconds(500))
        let bobAgain = try await Peer.connect("bob", to: servers[2])
        try await CallLogFlowTests.send(alice, "grace", to: ["bob"], .mediaSettings(.init(audioEnabled: false)))
        #expect(try await bobAgain.next(.mediaSettings, from: "alice").session == "grace")
        try await CallLogFlowTests.send(bobAgain, "grace", to: ["alice"], .hangUp(.init()))
        _ = try await alice.next(.hangUp, from: "bob")
        let record = try #require(try await servers[0].server.callLog.call(id: "grace"))
        #expect(record.result == .completed)
        #expect(record.answered != nil)
        await Self.stop(servers, [alice, bobAgain])
    }

    /// Nobody logs in again: after the grace, the others hear that Bob left (connection lost),
    /// from whichever instance swept first, and the record says so.
    @Test func aUserWhoDoesNotComeBackLeavesAfterTheGrace() async throws {
        var configuration = SignalingServer.Configuration()
        configuration.reconnectGrace = .seconds(1)
        let servers = try await Self.cluster(configuration)
        let alice = try await Peer.connect("alice", to: servers[0])
        let bob = try await Peer.connect("bob", to: servers[1])
        try await CallLogFlowTests.dial("gone", alice, [bob])
        try await CallLogFlowTests.send(bob, "gone", to: ["alice"], .accept(.init(sdp: "v=0\r\n")))
        _ = try await alice.next(.accept, from: "bob")
        await bob.close()
        let notice = try await alice.next(.hangUp, from: "bob")
        guard case let .hangUp(hangUp) = notice.body else {
            Issue.record("expected a hangUp")
            return
        }
        #expect(hangUp.result == .connectionLost)
        #expect(try await servers[2].server.callLog.call(id: "gone")?.result == .connectionLost)
        await Self.stop(servers, [alice])
    }
}
