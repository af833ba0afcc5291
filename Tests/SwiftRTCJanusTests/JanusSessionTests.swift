import Foundation
import JanusTestSupport
import SwiftRTCCore
import Testing

@testable import SwiftRTCJanus

/// The Janus client against a real Janus 1.1.2 (VideoRoom plugin, WebSocket transport): rooms
/// made, joined and left with the events other participants see, plugin and Janus errors,
/// keepalives, a dropped connection claimed back, and a restarted Janus.
@Suite(.serialized) struct JanusSessionTests {
    static let videoRoom = "janus.plugin.videoroom"

    static func server(sessionTimeout: Int = 60) async throws -> JanusServer {
        try #require(JanusServer.isInstalled, "janus is not installed: run Scripts/bootstrap.sh --tests")
        return try await JanusServer(sessionTimeout: sessionTimeout)
    }

    static func configuration(_ server: JanusServer) -> JanusSession.Configuration {
        var configuration = JanusSession.Configuration(url: server.url)
        configuration.requestTimeout = .seconds(5)
        return configuration
    }

    /// The first plugin event on `handle` whose data satisfies `matches`, within 5 s.
    static func nextPluginEvent(
        _ handle: JanusHandle,
        where matches: @escaping @Sendable (JanusJSON) -> Bool
    ) async -> JanusJSON? {
        let events = handle.events
        return await withTaskGroup(of: JanusJSON?.self) { group in
            group.addTask {
                for await event in events {
                    if case .plugin(let data, _) = event, matches(data) { return data }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(5))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// The session's events until one satisfies `last` (it included) or they end.
    static func collect(
        _ session: JanusSession,
        until last: @escaping @Sendable (JanusSessionEvent) -> Bool
    ) -> Task<[JanusSessionEvent], Never> {
        Task {
            var seen: [JanusSessionEvent] = []
            for await event in session.events {
                seen.append(event)
                if last(event) { break }
            }
            return seen
        }
    }

    static func isClosed(_ event: JanusSessionEvent) -> Bool {
        if case .closed = event { true } else { false }
    }

    @Test func aRoomIsMadeJoinedAndLeftAndTheOthersAreTold() async throws {
        let server = try await Self.server()
        defer { server.stop() }
        let alice = try await JanusSession.connect(Self.configuration(server))
        let bob = try await JanusSession.connect(Self.configuration(server))
        #expect(alice.id > 0 && bob.id > 0 && alice.id != bob.id)
        let room = Int64.random(in: 1_000_000...9_000_000)
        let aliceRoom = try await alice.attach(plugin: Self.videoRoom)
        let created = try await aliceRoom.request([
            "request": "create", "room": .number(Double(room)), "publishers": 12, "notify_joining": true,
        ])
        #expect(created["videoroom"]?.string == "created" && created["room"]?.integer == room)
        #expect(
            try await aliceRoom.request(["request": "exists", "room": .number(Double(room))])["exists"]?.bool == true
        )

        let joined = try await aliceRoom.message([
            "request": "join", "ptype": "publisher", "room": .number(Double(room)), "display": "alice",
        ])
        #expect(joined.data["videoroom"]?.string == "joined" && joined.data["room"]?.integer == room)
        let aliceID = try #require(joined.data["id"]?.integer)

        let bobRoom = try await bob.attach(plugin: Self.videoRoom)
        let bobJoined = try await bobRoom.message([
            "request": "join", "ptype": "publisher", "room": .number(Double(room)), "display": "bob",
        ])
        let bobID = try #require(bobJoined.data["id"]?.integer)
        #expect(bobID != aliceID)
        let joining = await Self.nextPluginEvent(aliceRoom) { $0["joining"] != nil }
        #expect(joining?["joining"]?["display"]?.string == "bob" && joining?["joining"]?["id"]?.integer == bobID)

        let listed = try await aliceRoom.request(["request": "listparticipants", "room": .number(Double(room))])
        let names = Set((listed["participants"]?.array ?? []).compactMap { $0["display"]?.string })
        #expect(names == ["alice", "bob"])

        _ = try await bobRoom.message(["request": "leave"])
        let leaving = await Self.nextPluginEvent(aliceRoom) { $0["leaving"] != nil }
        #expect(leaving?["leaving"]?.integer == bobID)

        try await bobRoom.detach()
        var bobEvents: [JanusHandleEvent] = []
        for await event in bobRoom.events { bobEvents.append(event) }  // ends once detached
        await bob.destroy()
        await alice.destroy()
        #expect(alice.isClosed && bob.isClosed)
    }

    @Test func janusAndPluginErrorsComeBackAsErrors() async throws {
        let server = try await Self.server()
        defer { server.stop() }
        let session = try await JanusSession.connect(Self.configuration(server))
        await #expect(throws: JanusError.self) { try await session.attach(plugin: "janus.plugin.nonexistent") }
        do {
            _ = try await session.attach(plugin: "janus.plugin.nonexistent")
        } catch {
            guard case .janus(let code, _) = error else { throw error }
            #expect(code == 460)  // JANUS_ERROR_PLUGIN_NOT_FOUND
        }
        let handle = try await session.attach(plugin: Self.videoRoom)
        do {
            _ = try await handle.message(["request": "join", "ptype": "publisher", "room": 424_242_424])
            Issue.record("joined a room that does not exist")
        } catch {
            guard case .plugin(let code, let reason) = error else { throw error }
            #expect(code == 426, "\(reason)")  // JANUS_VIDEOROOM_ERROR_NO_SUCH_ROOM
        }
        await session.destroy()
        await #expect(throws: JanusError.sessionClosed) { try await session.attach(plugin: Self.videoRoom) }
    }

    @Test func keepalivesHoldASessionPastJanussTimeoutAndSilenceEndsIt() async throws {
        let server = try await Self.server(sessionTimeout: 3)
        defer { server.stop() }
        var kept = Self.configuration(server)
        kept.keepaliveInterval = .seconds(1)
        let alive = try await JanusSession.connect(kept)
        var silent = Self.configuration(server)
        silent.keepaliveInterval = .seconds(60)
        let quiet = try await JanusSession.connect(silent)
        // Janus looks for idle sessions every 2 s: the silent one ends 3 to 6 s after its last
        // request. Once it has, the other was as long without a request of its own.
        let ended = Self.collect(quiet) { Self.isClosed($0) }
        let seen = try #require(try await withTimeout(.seconds(20)) { await ended.value }, "no end within 20 s")
        guard case .closed(let reason) = seen.last else {
            Issue.record("\(seen)")
            return
        }
        #expect(reason.contains("timed the session out") && quiet.isClosed)
        let handle = try await alive.attach(plugin: Self.videoRoom)
        #expect(try await handle.request(["request": "list"])["videoroom"]?.string == "success")
        await alive.destroy()
    }

    @Test func aDroppedConnectionClaimsTheSessionBack() async throws {
        let server = try await Self.server()
        defer { server.stop() }
        let session = try await JanusSession.connect(Self.configuration(server))
        let handle = try await session.attach(plugin: Self.videoRoom)
        let events = Self.collect(session) { $0 == .reconnected || Self.isClosed($0) }
        session.dropConnection()
        let seen = await events.value
        #expect(seen.count == 2 && seen.last == .reconnected, "\(seen)")
        // The same handle of the same session answers on the new connection.
        #expect(try await handle.request(["request": "list"])["videoroom"]?.string == "success")
        #expect(!session.isClosed)
        await session.destroy()
    }

    @Test func aRestartedJanusClosesTheSession() async throws {
        let server = try await Self.server()
        defer { server.stop() }
        let session = try await JanusSession.connect(Self.configuration(server))
        let handle = try await session.attach(plugin: Self.videoRoom)
        let events = Self.collect(session) { _ in false }
        server.stop()
        try await server.start()
        let seen = await events.value
        #expect(seen.count == 2, "\(seen)")
        #expect(seen.first.map { if case .connectionLost = $0 { true } else { false } } == true, "\(seen)")
        guard case .closed(let reason) = seen.last else {
            Issue.record("no closed event: \(seen)")
            return
        }
        #expect(reason.contains("458") || reason.contains("No such session"), "\(reason)")
        var handleEvents = 0
        for await _ in handle.events { handleEvents += 1 }  // ended with the session
        await #expect(throws: JanusError.sessionClosed) { try await handle.request(["request": "list"]) }
        // A new session on the restarted Janus works.
        let again = try await JanusSession.connect(Self.configuration(server))
        await again.destroy()
    }
}
