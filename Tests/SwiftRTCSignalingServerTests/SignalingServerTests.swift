import Foundation
import SwiftRTCSignaling
import Testing

@testable import SwiftRTCSignalingServer

/// The signaling server over real WebSockets on 127.0.0.1: authentication, routing, the
/// session rules, and refusals that leave the server serving.
@Suite struct SignalingServerTests {
    @Test(arguments: Backend.allCases) func aTokenAuthenticatesItsUser(backend: Backend) async throws {
        let server = try await RunningServer.start(backend: backend)
        let alice = try await server.connect("alice")
        #expect(alice.userID == "alice")
        #expect(await server.server.connectedUsers == ["alice"])
        await alice.close()
        await server.stop()
    }

    @Test(arguments: Backend.allCases) func anUnknownTokenIsRefusedAndClosed(backend: Backend) async throws {
        let server = try await RunningServer.start(backend: backend)
        do {
            _ = try await WebSocketSignalingChannel.connect(to: server.url, token: "not-a-token-of-anyone-here")
            Issue.record("an unknown token was accepted")
        } catch let error {
            guard case .refused = error else {
                Issue.record("expected a refused login, got \(error)")
                return
            }
            #expect(error.description.contains("refused the token"), "\(error)")
            #expect(error.description.contains("401"), "\(error)")
        }
        let raw = try await server.raw()
        raw.send(.text(#"{"type":"hello","token":"token-of-mallory-0123456789"}"#))
        #expect(try await raw.nextError().code == .unauthenticated)
        try await raw.inbox.waitFinished()
        #expect(await server.server.connectedUsers == [])
        await server.stop()
    }

    @Test(arguments: Backend.allCases) func aServerThatIsNotThereIsATransportError(backend: Backend) async throws {
        // A port nothing listens on (bound, then released).
        let server = try await RunningServer.start(backend: backend)
        let url = server.url
        await server.stop()
        do {
            _ = try await WebSocketSignalingChannel.connect(
                to: url,
                token: TestUsers.token("alice"),
                timeout: .seconds(5)
            )
            Issue.record("connected to a stopped server")
        } catch let error {
            guard case .transport = error else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
            #expect(error.description.contains(url.absoluteString))
        }
    }

    @Test(arguments: Backend.allCases) func usersFilePasswordsAuthenticate(backend: Backend) async throws {
        let credentials = try SignalingCredentials.users(["erin": TestPasswords.erin])
        let server = try await RunningServer.start(credentials: credentials, backend: backend)
        let erin = try await WebSocketSignalingChannel.connect(to: server.url, token: "erin:correct horse")
        #expect(erin.userID == "erin")
        await erin.close()
        for token in ["erin:wrong horse", "frank:correct horse", "erin", ":"] {
            await #expect(throws: SignalingChannelError.self, "\(token)") {
                _ = try await WebSocketSignalingChannel.connect(to: server.url, token: token)
            }
        }
        await server.stop()
    }

    @Test(arguments: Backend.allCases) func aMessageBeforeHelloIsRefusedAndClosesTheConnection(
        backend: Backend
    ) async throws {
        var configuration = SignalingServer.Configuration()
        configuration.helloTimeout = .seconds(60)
        let server = try await RunningServer.start(configuration, backend: backend)
        let raw = try await server.raw()
        raw.send(.text(#"{"type":"callLogQuery","id":"q1"}"#))
        let refused = try await raw.nextError()
        #expect(refused.code == .unauthenticated)
        #expect(refused.replyTo == "q1")
        // Only a hello may come first: the connection is closed, long before the hello timeout.
        try await raw.inbox.waitFinished()
        // So is one whose first message does not even parse.
        let junk = try await server.raw()
        junk.send(.text("not json"))
        #expect(try await junk.nextError().code == .malformed)
        try await junk.inbox.waitFinished()
        await server.stop()
    }

    @Test(arguments: Backend.allCases) func aConnectionThatSaysNoHelloIsClosed(backend: Backend) async throws {
        var configuration = SignalingServer.Configuration()
        configuration.helloTimeout = .milliseconds(500)
        let server = try await RunningServer.start(configuration, backend: backend)
        let raw = try await server.raw()
        let error = try await raw.nextError()
        #expect(error.code == .unauthenticated)
        #expect(error.reason.contains("no hello"))
        try await raw.inbox.waitFinished()
        await server.stop()
    }

    @Test(arguments: Backend.allCases) func messagesAreRoutedBetweenUsersWithTheAuthenticatedSender(
        backend: Backend
    ) async throws {
        let server = try await RunningServer.start(backend: backend)
        let alice = try await Peer.connect("alice", to: server)
        let bob = try await Peer.connect("bob", to: server)
        try await alice.send(.call("s1", from: "alice", to: ["bob"]))
        let call = try await bob.next()
        #expect(call.from == "alice")
        #expect(call.session == "s1")
        guard case let .call(body) = call.body else {
            Issue.record("expected call, got \(call)")
            return
        }
        #expect(body.opponents == ["bob"])
        #expect(body.userInfo == ["n": "1"])
        try await bob.send(
            SignalingMessage(to: ["alice"], session: "s1", body: .accept(.init(sdp: "v=0\r\n", userInfo: ["k": "v"])))
        )
        let accept = try await alice.next()
        #expect(accept.from == "bob")
        #expect(accept.type == .accept)
        try await alice.send(
            SignalingMessage(
                to: ["bob"],
                session: "s1",
                body: .candidate(.init(candidate: "candidate:1 1 udp 1 127.0.0.1 9 typ host", sdpMid: "0"))
            )
        )
        let candidate = try await bob.next()
        #expect(candidate.from == "alice")
        guard case let .candidate(c) = candidate.body else {
            Issue.record("expected candidate")
            return
        }
        #expect(c.sdpMid == "0")
        // Nothing else reached either side.
        #expect(try await alice.inbox.expectNothing() == nil)
        await alice.close()
        await bob.close()
        await server.stop()
    }

    @Test(arguments: Backend.allCases) func aRecipientNotConnectedIsReported(backend: Backend) async throws {
        let server = try await RunningServer.start(backend: backend)
        let alice = try await Peer.connect("alice", to: server)
        var call = SignalingMessage.call("s-offline", from: "alice", to: ["dave"])
        call.id = "m1"
        try await alice.send(call)
        let error = try await alice.nextError()
        #expect(error.code == .recipientUnavailable)
        #expect(error.replyTo == "m1")
        #expect(error.reason.contains("dave"))
        await alice.close()
        await server.stop()
    }

    @Test(arguments: Backend.allCases) func aClientCannotActAsAnotherUser(backend: Backend) async throws {
        let server = try await RunningServer.start(backend: backend)
        let alice = try await Peer.connect("alice", to: server)
        let bob = try await Peer.connect("bob", to: server)
        let carol = try await Peer.connect("carol", to: server)
        // A `from` naming someone else.
        var forged = SignalingMessage.call("s2", from: "alice", to: ["bob"])
        forged.from = "carol"
        try await alice.send(forged)
        #expect(try await alice.nextError().code == .forbidden)
        // A call whose initiator is someone else.
        try await alice.send(.call("s3", from: "carol", to: ["bob"]))
        let error = try await alice.nextError()
        #expect(error.code == .forbidden)
        #expect(error.reason.contains("initiator"))
        // Bob got none of them; carol neither.
        #expect(try await bob.inbox.expectNothing() == nil)
        #expect(try await carol.inbox.expectNothing(for: .milliseconds(50)) == nil)
        await alice.close()
        await bob.close()
        await carol.close()
        await server.stop()
    }

    @Test(arguments: Backend.allCases) func nobodyJoinsACallTheyWereNotInvitedTo(backend: Backend) async throws {
        let server = try await RunningServer.start(backend: backend)
        let alice = try await Peer.connect("alice", to: server)
        let bob = try await Peer.connect("bob", to: server)
        let carol = try await Peer.connect("carol", to: server)
        try await alice.send(.call("s4", from: "alice", to: ["bob"]))
        _ = try await bob.next()
        // Carol accepts, sends candidates, hangs up, or calls with the same session id: refused.
        let attempts: [SignalingMessage] = [
            SignalingMessage(to: ["alice"], session: "s4", body: .accept(.init(sdp: "v=0\r\n"))),
            SignalingMessage(to: ["alice"], session: "s4", body: .candidate(.init(candidate: "candidate:x"))),
            SignalingMessage(to: ["alice", "bob"], session: "s4", body: .hangUp(.init())),
            SignalingMessage(to: ["alice"], session: "s4", body: .customItems(.init(updated: ["x": "y"]))),
        ]
        for attempt in attempts {
            let error = try await {
                try await carol.send(attempt)
                return try await carol.nextError()
            }()
            #expect(error.code == .forbidden, "\(attempt.type)")
        }
        try await carol.send(.call("s4", from: "carol", to: ["bob"]))
        #expect(try await carol.nextError().code == .conflict)
        // Alice cannot pull carol in by addressing her either.
        try await alice.send(
            SignalingMessage(to: ["carol"], session: "s4", body: .candidate(.init(candidate: "candidate:y")))
        )
        #expect(try await alice.nextError().code == .forbidden)
        // A session nobody created.
        try await carol.send(
            SignalingMessage(to: ["bob"], session: "no-such-session", body: .offer(.init(sdp: "v=0\r\n")))
        )
        #expect(try await carol.nextError().code == .forbidden)
        #expect(try await alice.inbox.expectNothing() == nil)
        #expect(try await bob.inbox.expectNothing(for: .milliseconds(50)) == nil)
        await alice.close()
        await bob.close()
        await carol.close()
        await server.stop()
    }

    @Test(arguments: Backend.allCases) func aNewerConnectionOfTheSameUserReplacesTheOlder(backend: Backend) async throws
    {
        let server = try await RunningServer.start(backend: backend)
        let first = try await Peer.connect("bob", to: server)
        let second = try await Peer.connect("bob", to: server)
        #expect(try await first.nextError().code == .conflict)
        try await first.inbox.waitFinished()
        let alice = try await Peer.connect("alice", to: server)
        try await alice.send(.call("s5", from: "alice", to: ["bob"]))
        #expect(try await second.next().type == .call)
        await alice.close()
        await second.close()
        await server.stop()
    }

    @Test(arguments: Backend.allCases) func gracefulShutdownLogsOngoingCallsAndClosesConnections(
        backend: Backend
    ) async throws {
        // Sharing a database, the server waits the reconnect grace for its users to move.
        var configuration = SignalingServer.Configuration()
        configuration.reconnectGrace = .seconds(1)
        let server = try await RunningServer.start(configuration, backend: backend)
        let alice = try await Peer.connect("alice", to: server)
        let bob = try await Peer.connect("bob", to: server)
        try await alice.send(.call("s6", from: "alice", to: ["bob"]))
        _ = try await bob.next()
        try await bob.send(SignalingMessage(to: ["alice"], session: "s6", body: .accept(.init(sdp: "v=0\r\n"))))
        _ = try await alice.next()
        let states = [Inbox(alice.channel.connectionStates), Inbox(bob.channel.connectionStates)]
        await server.stop()
        // Closed with 1001 (going away): the clients try to log in again, until closed.
        for inbox in states {
            #expect(try await inbox.next() == .connected(server.url))
            let dropped = try await inbox.next()
            guard case let .reconnecting(1, lastError) = dropped else {
                throw TestTimeout(description: "expected reconnecting, got \(dropped)")
            }
            #expect(lastError.contains("1001"), "\(lastError)")
        }
        await alice.close()
        await bob.close()
        try await alice.inbox.waitFinished()
        try await bob.inbox.waitFinished()
        let record = try #require(try await server.server.callLog.call(id: "s6"))
        #expect(record.result == .connectionLost)
        #expect(record.answered != nil)
        await #expect(throws: SignalingChannelError.self) {
            try await alice.send(SignalingMessage(session: "s6", body: .callLogQuery(.init())))
        }
    }

    /// The race behind a record once lost: a sweep that took the handed-over users from the
    /// database while the server task group was cancelled never wrote their call's record.
    /// Once the shutdown began, the sweep leaves them to the hand-over.
    @Test func aSweepDuringTheHandOverLeavesTheUsersToIt() async throws {
        var configuration = SignalingServer.Configuration()
        configuration.reconnectGrace = .milliseconds(100)
        let server = try await RunningServer.start(configuration, backend: .postgres)
        let alice = try await Peer.connect("alice", to: server)
        let bob = try await Peer.connect("bob", to: server)
        try await alice.send(.call("s7", from: "alice", to: ["bob"]))
        _ = try await bob.next()
        try await bob.send(SignalingMessage(to: ["alice"], session: "s7", body: .accept(.init(sdp: "v=0\r\n"))))
        _ = try await alice.next()
        let hub = server.server.hub
        let handedOver = await hub.shutdown()
        #expect(handedOver == ["alice", "bob"])
        // Past the reconnect grace, a sweep would expire them.
        try await Task.sleep(for: .milliseconds(400))
        await hub.sweep()
        #expect(await hub.awaitingHandOver(handedOver) == 2)
        await hub.finishHandOver(handedOver)
        #expect(await hub.awaitingHandOver(handedOver) == 0)
        let record = try #require(try await server.server.callLog.call(id: "s7"))
        #expect(record.result == .connectionLost)
        #expect(record.caller == "alice" && record.callees == ["bob"])
        await alice.close()
        await bob.close()
        await server.stop()
    }
}
