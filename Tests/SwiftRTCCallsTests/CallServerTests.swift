import Foundation
import SwiftRTCSignaling
import SwiftRTCSignalingServer
import TestScheduling
import Testing

@testable import SwiftRTCCalls

/// The key call flows over the real signaling server: WebSocket channels, token login,
/// session membership enforced by the server, and its call log.
@Suite(.serialized, .realTime) struct CallServerTests {
    static func token(_ user: String) -> String { "call-test-token-of-\(user)" }

    /// A server on a free loopback port for alice, bob and mallory.
    static func startServer() async throws -> (SignalingServer, URL, Task<Void, any Error>) {
        let users = ["alice", "bob", "mallory"]
        let credentials = try SignalingCredentials.tokens(
            Dictionary(uniqueKeysWithValues: users.map { (token($0), $0) })
        )
        let server = SignalingServer(configuration: .init(host: "127.0.0.1", port: 0), credentials: credentials)
        let (urls, continuation) = AsyncStream.makeStream(of: URL.self)
        let running = Task { try await server.run { continuation.yield($0) } }
        var iterator = urls.makeAsyncIterator()
        let url = try #require(await iterator.next())
        return (server, url, running)
    }

    static func bot(_ user: String, _ url: URL) async throws -> Bot {
        await Bot(user, channel: try await WebSocketSignalingChannel.connect(to: url, token: token(user)))
    }

    @Test func callOverTheServerIsLoggedAndQueryableByRoleAndResult() async throws {
        let (server, url, running) = try await Self.startServer()
        defer {
            Task {
                await server.shutdown()
                _ = await running.result
            }
        }
        let alice = try await Self.bot("alice", url), bob = try await Self.bot("bob", url)

        // A completed call with a custom item...
        let call = try await alice.client.createSession(opponents: ["bob"], conferenceType: .video)
        await alice.follow(call)
        playMedia(call, frequency: 440)
        try await call.startCall(userInfo: ["via": "server"])
        let (incoming, info) = try #require(await bob.incoming())
        #expect(info == ["via": "server"])
        playMedia(incoming, frequency: 660)
        try await incoming.acceptCall()
        #expect(await alice.wait(call, "connected") { $0.contains(connectedTo: "bob") })
        #expect(await bob.wait(incoming, "connected") { $0.contains(connectedTo: "alice") })
        await call.updateCustomItems(["topic": "logged"])
        #expect(
            await bob.wait(incoming, "item") { events in
                events.contains {
                    if case .customItemsChanged("alice", _, _, ["topic": "logged"]) = $0 { true } else { false }
                }
            }
        )
        await incoming.hangUp(userInfo: ["bye": "1"])
        #expect(await alice.wait(call, "hang up") { $0.hungUp(by: "bob") == ["bye": "1"] })

        // ...then a declined one.
        let second = try await alice.client.createSession(opponents: ["bob"], conferenceType: .audio)
        await alice.follow(second)
        try await second.startCall()
        let ringing = try #require(await bob.incoming(id: second.id))
        try await ringing.rejectCall()
        #expect(await alice.wait(second, "reject") { $0.record != nil })

        // The server's log, newest first, by role, result and limit.
        var log: [CallRecord] = []
        for _ in 0..<100 where log.count < 2 {
            log = try await alice.client.callLog()
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(log.map(\.callId) == [second.id, call.id])
        #expect(log.map(\.result) == [.declined, .completed])
        #expect(log.last?.customItems == ["topic": "logged"] && log.last?.conferenceType == .video)
        #expect((log.last?.duration ?? 0) > 0)
        #expect(try await bob.client.callLog(role: .callee, result: .completed).map(\.callId) == [call.id])
        #expect(try await bob.client.callLog(role: .caller).isEmpty)
        #expect(try await alice.client.callLog(limit: 1).map(\.callId) == [second.id])
        // Out of range: refused before it is sent.
        await #expect(throws: SignalingChannelError.self) { try await alice.client.callLog(limit: 100_000) }
    }

    @Test func uninvitedUserCannotJoinAndABadTokenCannotLogIn() async throws {
        let (server, url, running) = try await Self.startServer()
        defer {
            Task {
                await server.shutdown()
                _ = await running.result
            }
        }
        let alice = try await Self.bot("alice", url)
        _ = try await Self.bot("bob", url)
        let mallory = try await WebSocketSignalingChannel.connect(to: url, token: Self.token("mallory"))

        let call = try await alice.client.createSession(opponents: ["bob"], conferenceType: .audio)
        await alice.follow(call)
        try await call.startCall()
        // Mallory tries to answer alice's call and to hang it up: refused, alice hears nothing.
        try await mallory.send(
            SignalingMessage(id: "join", to: ["alice"], session: call.id, body: .accept(.init(sdp: "v=0\r\n")))
        )
        try await mallory.send(
            SignalingMessage(id: "end", to: ["alice", "bob"], session: call.id, body: .hangUp(.init()))
        )
        var refusals: [String: SignalingErrorCode] = [:]
        for await message in mallory.messages {
            if case .error(let reply) = message.body, let id = reply.replyTo { refusals[id] = reply.code }
            if refusals.count == 2 { break }
        }
        #expect(refusals == ["join": .forbidden, "end": .forbidden])
        try await Task.sleep(for: .milliseconds(200))
        #expect(!alice.events(call).contains { if case .accepted = $0 { true } else { false } })
        #expect(await call.connectionState(for: "bob") == .pending)
        await call.hangUp()

        await #expect(throws: SignalingChannelError.self) {
            try await WebSocketSignalingChannel.connect(to: url, token: "not-a-valid-token-at-all")
        }
    }
}
