import Foundation
import SocketTestSupport
import SwiftRTCSignaling
import Testing

@testable import SwiftRTCSignalingServer

/// `WebSocketSignalingChannel` failing over: a real server on loopback, reached through a
/// ``TCPRelay`` whose connections the tests cut (no close handshake), or several servers.
@Suite struct ReconnectionTests {
    /// A channel for `user` to `urls`, with its states collected.
    private func connect(
        _ user: String,
        to urls: [URL],
        reconnectFor: Duration = .seconds(20)
    ) async throws
        -> (Peer, Inbox<SignalingConnectionState>)
    {
        let channel = try await WebSocketSignalingChannel.connect(
            to: urls,
            token: TestUsers.token(user),
            timeout: .seconds(10),
            reconnectFor: reconnectFor
        )
        return (Peer(channel), Inbox(channel.connectionStates))
    }

    /// Skips `reconnecting` states until the next other one.
    private func nextAfterReconnecting(
        _ states: Inbox<SignalingConnectionState>
    ) async throws -> (SignalingConnectionState, attempts: Int) {
        var attempts = 0
        while true {
            let state = try await states.next(timeout: .seconds(20))
            guard case let .reconnecting(attempt, _) = state else { return (state, attempts) }
            attempts = attempt
        }
    }

    @Test func aCutConnectionLogsInAgainAndMessagesFlowBothWays() async throws {
        let server = try await RunningServer.start()
        let relay = try TCPRelay(to: server.url)
        let (alice, states) = try await connect("alice", to: [relay.url])
        let bob = try await Peer.connect("bob", to: server)
        #expect(try await states.next() == .connected(relay.url))

        relay.cut()
        let dropped = try await states.next()
        guard case let .reconnecting(attempt, lastError) = dropped else {
            throw TestTimeout(description: "expected reconnecting, got \(dropped)")
        }
        #expect(attempt == 1)
        #expect(!lastError.isEmpty)
        #expect(try await nextAfterReconnecting(states).0 == .connected(relay.url))

        // Both ways: a call from the reconnected channel, an accept from bob.
        try await alice.send(.call("s1", from: "alice", to: ["bob"]))
        let call = try await bob.next(.call, from: "alice")
        #expect(call.session == "s1")
        try await bob.send(SignalingMessage(to: ["alice"], session: "s1", body: .accept(.init(sdp: "v=0\r\n"))))
        #expect(try await alice.next(.accept, from: "bob").session == "s1")

        await alice.close()
        #expect(try await states.next() == .closed(.closedByClient))
        try await states.waitFinished(timeout: .seconds(5))
        await bob.close()
        relay.stop()
        await server.stop()
    }

    @Test func messagesSentWhileReconnectingGoOutInOrderAfterTheWelcome() async throws {
        let server = try await RunningServer.start()
        let relay = try TCPRelay(to: server.url)
        let (alice, states) = try await connect("alice", to: [relay.url])
        let bob = try await Peer.connect("bob", to: server)
        _ = try await states.next()

        relay.refusing = true
        relay.cut()
        guard case .reconnecting = try await states.next() else {
            throw TestTimeout(description: "expected reconnecting")
        }
        let sessions = ["q1", "q2", "q3"]
        for session in sessions { try await alice.send(.call(session, from: "alice", to: ["bob"])) }
        relay.refusing = false
        #expect(try await nextAfterReconnecting(states).0 == .connected(relay.url))
        for session in sessions {
            #expect(try await bob.next(.call, from: "alice").session == session)
        }

        await alice.close()
        await bob.close()
        relay.stop()
        await server.stop()
    }

    @Test func theQueueWhileReconnectingIsBounded() async throws {
        let server = try await RunningServer.start()
        let relay = try TCPRelay(to: server.url)
        let (alice, states) = try await connect("alice", to: [relay.url])
        _ = try await states.next()
        relay.refusing = true
        relay.cut()
        guard case .reconnecting = try await states.next() else {
            throw TestTimeout(description: "expected reconnecting")
        }
        for index in 0..<WebSocketSignalingChannel.maxQueuedMessages {
            try await alice.send(.call("s\(index)", from: "alice", to: ["bob"]))
        }
        await #expect(throws: SignalingChannelError.queueFull(limit: WebSocketSignalingChannel.maxQueuedMessages)) {
            try await alice.send(.call("one-more", from: "alice", to: ["bob"]))
        }
        // Closing while reconnecting stops at once.
        await alice.close()
        #expect(try await nextAfterReconnecting(states).0 == .closed(.closedByClient))
        await #expect(throws: SignalingChannelError.closed) {
            try await alice.send(.call("late", from: "alice", to: ["bob"]))
        }
        relay.stop()
        await server.stop()
    }

    @Test func aReplacedConnectionClosesWithoutReconnecting() async throws {
        let server = try await RunningServer.start()
        let (first, states) = try await connect("alice", to: [server.url])
        #expect(try await states.next() == .connected(server.url))
        let second = try await Peer.connect("alice", to: server)

        #expect(try await first.nextError().code == .conflict)
        let closed = try await states.next()
        #expect(closed == .closed(.closedByServer(code: 1008, reason: "replaced by a newer connection")), "\(closed)")
        try await states.waitFinished(timeout: .seconds(5))
        try await first.inbox.waitFinished(timeout: .seconds(5))
        await #expect(throws: SignalingChannelError.closed) {
            try await first.send(.call("s1", from: "alice", to: ["bob"]))
        }
        #expect(await server.server.connectedUsers == ["alice"])

        await second.close()
        await server.stop()
    }

    @Test func aServerGoneLongerThanTheGiveUpTimeClosesTheChannel() async throws {
        let server = try await RunningServer.start()
        let relay = try TCPRelay(to: server.url)
        // 3 s: room for several attempts (backoff 0.2 s, 0.4 s, 0.8 s...) even when the other
        // suites load the machine (with 1 s, a slow first attempt left no second one).
        let (alice, states) = try await connect("alice", to: [relay.url], reconnectFor: .seconds(3))
        _ = try await states.next()
        let started = ContinuousClock.now

        relay.refusing = true
        relay.cut()
        let (last, attempts) = try await nextAfterReconnecting(states)
        guard case let .closed(.gaveUp(after, lastError)) = last else {
            throw TestTimeout(description: "expected gave up, got \(last)")
        }
        #expect(after == .seconds(3))
        #expect(lastError.contains(relay.url.absoluteString), "\(lastError)")
        #expect(attempts >= 2)
        #expect(ContinuousClock.now - started < .seconds(15))
        try await alice.inbox.waitFinished(timeout: .seconds(5))
        await #expect(throws: SignalingChannelError.closed) {
            try await alice.send(.call("s1", from: "alice", to: ["bob"]))
        }

        relay.stop()
        await server.stop()
    }

    @Test func theFirstLoginTriesTheURLsInOrder() async throws {
        // A port nothing listens on (a server started, then stopped).
        let gone = try await RunningServer.start()
        await gone.stop()
        let server = try await RunningServer.start()
        let (alice, states) = try await connect("alice", to: [gone.url, server.url])
        #expect(alice.user == "alice")
        #expect(try await states.next() == .connected(server.url))

        // No server at all: the error names each.
        let error = await #expect(throws: SignalingChannelError.self) {
            _ = try await WebSocketSignalingChannel.connect(
                to: [gone.url, gone.url],
                token: TestUsers.token("bob"),
                timeout: .seconds(5)
            )
        }
        #expect(
            "\(error.map { "\($0)" } ?? "")".components(separatedBy: gone.url.absoluteString).count == 3,
            "\(String(describing: error))"
        )

        await alice.close()
        await server.stop()
    }

    @Test func aServerGoingAwayMovesTheChannelToTheNextURL() async throws {
        let first = try await RunningServer.start()
        let second = try await RunningServer.start()
        let (alice, states) = try await connect("alice", to: [first.url, second.url])
        #expect(try await states.next() == .connected(first.url))

        await first.stop()
        let dropped = try await states.next()
        guard case let .reconnecting(_, lastError) = dropped else {
            throw TestTimeout(description: "expected reconnecting, got \(dropped)")
        }
        #expect(lastError.contains("1001"), "\(lastError)")
        #expect(try await nextAfterReconnecting(states).0 == .connected(second.url))

        let bob = try await Peer.connect("bob", to: second)
        try await alice.send(.call("s1", from: "alice", to: ["bob"]))
        #expect(try await bob.next(.call, from: "alice").session == "s1")
        try await bob.send(SignalingMessage(to: ["alice"], session: "s1", body: .hangUp(.init())))
        #expect(try await alice.next(.hangUp, from: "bob").session == "s1")

        await alice.close()
        await bob.close()
        await second.stop()
    }
}

extension TCPRelay {
    /// The signaling URL through the relay.
    var url: URL { URL(string: "ws://127.0.0.1:\(port)/signaling")! }
}
