import Foundation
import PostgresTestSupport
import SocketTestSupport
import SwiftRTCSignaling
import Testing

@testable import SwiftRTCSignalingServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 36 ("Strangers at the door") on PostgreSQL: the queue of notifications for other
/// instances is bounded in bytes, `/readyz` answers from the heartbeat without querying the
/// database, stored users are replaced only by a newer users file, and users removed from the
/// stored set (or whose token changed) are closed on every instance.
@Suite struct PostgresDoorTests {
    /// A queue nothing drains (the state's `run` is not started, its pool never connects) takes
    /// payloads up to ``PostgresSignalingState/maxPendingNotificationBytes`` and drops (and
    /// counts) the rest, though far fewer than ``PostgresSignalingState/maxPendingNotifications``
    /// were queued.
    @Test func theNotifyQueueIsBoundedInBytesAndCountsWhatItDrops() async throws {
        let storage = try PostgresStorage(url: "postgres://nobody@127.0.0.1:9/nothing")
        defer { storage.close() }
        let state = storage.state
        let limit = PostgresSignalingState.maxPendingNotificationBytes
        let text = String(repeating: "x", count: PostgresSignalingState.maxNotifyBytes)
        let presence = UserPresence(instance: "elsewhere", connection: 1)
        let sent = 2 * limit / text.utf8.count
        #expect(sent < PostgresSignalingState.maxPendingNotifications)
        for _ in 0..<sent { state.send(text, to: "bob", at: presence) }
        let held = state.pendingNotificationBytes
        #expect(held <= limit, "\(held) bytes held, the limit is \(limit)")
        // Filled up to the limit: one more payload of this size would not have fitted.
        #expect(held + text.utf8.count + 100 > limit, "\(held) bytes held")
        let dropped = state.droppedNotifications.load(ordering: .relaxed)
        #expect(dropped == sent - state.pendingNotificationCount)
        #expect(dropped >= sent / 3, "\(dropped) of \(sent) dropped")
    }

    /// The status of `GET /readyz` on the server of a WebSocket URL.
    static func readyz(_ server: RunningServer) async throws -> Int {
        var components = try #require(URLComponents(url: server.url, resolvingAgainstBaseURL: false))
        components.scheme = "http"
        components.path = "/readyz"
        let (_, response) = try await URLSession.shared.data(from: try #require(components.url))
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    /// Polls `/readyz` until it answers `status`, for at most `timeout`.
    static func waitForReadyz(_ server: RunningServer, _ status: Int, timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await readyz(server) == status { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// Strangers asking `/readyz` cost the database nothing: 200 answers take at most one
    /// database round trip per heartbeat in that time. The database cut off (a relay that
    /// resets every connection), readiness turns false once the last heartbeat is too old,
    /// and true again when the database is back.
    @Test func readyzAnswersFromTheHeartbeatAndTurnsFalseWithoutTheDatabase() async throws {
        let url = try await PostgresTestServer.shared().database()
        let database = try #require(URLComponents(string: url))
        let databasePort = try #require(database.port)
        let relay = try TCPRelay(to: try #require(URL(string: "http://127.0.0.1:\(databasePort)")))
        defer { relay.stop() }
        let storage = try PostgresStorage(url: "postgres://postgres@127.0.0.1:\(relay.port)\(database.path)")
        let running = try await RunningServer.start(storage: .postgres(storage))
        #expect(try await Self.waitForReadyz(running, 200, timeout: .seconds(20)))
        let state = storage.state
        let before = state.readinessChecks.load(ordering: .relaxed)
        let started = ContinuousClock.now
        var answers: [Int: Int] = [:]
        for _ in 0..<200 { answers[try await Self.readyz(running), default: 0] += 1 }
        let elapsed = ContinuousClock.now - started
        let checks = state.readinessChecks.load(ordering: .relaxed) - before
        #expect(answers == [200: 200])
        let heartbeats = Int((elapsed / PostgresSignalingState.heartbeatInterval).rounded(.up)) + 1
        #expect(checks <= heartbeats, "\(checks) database checks for 200 /readyz in \(elapsed)")
        // A heartbeat older than `readyWithin` is too old.
        #expect(state.isReady(at: .now))
        #expect(!state.isReady(at: .now + PostgresSignalingState.readyWithin))

        relay.refusing = true
        relay.cut()
        #expect(try await Self.waitForReadyz(running, 503, timeout: .seconds(20)), "still ready without a database")
        relay.refusing = false
        #expect(try await Self.waitForReadyz(running, 200, timeout: .seconds(20)), "not ready again")
        await running.stop()
    }

    /// The stored users carry their file's modification time and digest: an older file does not
    /// replace them, the same users are not written again (whatever the file's time), a newer
    /// file replaces them.
    @Test func storedUsersAreReplacedOnlyByANewerFile() async throws {
        let storage = try PostgresStorage(url: try await PostgresTestServer.shared().database())
        defer { storage.close() }
        try await storage.migrate()
        let now = Date()
        let first = try SignalingCredentials.tokens([TestUsers.token("alice"): "alice", TestUsers.token("bob"): "bob"])
        let older = try SignalingCredentials.tokens([TestUsers.token("bob"): "bob"])
        let newer = try SignalingCredentials.tokens([TestUsers.token("carol"): "carol"])
        #expect(try await storage.storeCredentials(first, modified: now) == .stored)
        #expect(try await storage.storeCredentials(first, modified: now.addingTimeInterval(60)) == .unchanged)
        let kept = try await storage.storeCredentials(older, modified: now.addingTimeInterval(-60))
        guard case let .newerStored(stored) = kept else {
            Issue.record("an older file replaced the stored users: \(kept)")
            return
        }
        #expect(abs(stored.timeIntervalSince(now)) < 0.001)
        #expect(try await storage.loadCredentials()?.userIDs == ["alice", "bob"])
        #expect(try await storage.storeCredentials(newer, modified: now.addingTimeInterval(1)) == .stored)
        #expect(try await storage.loadCredentials()?.userIDs == ["carol"])
        // The digest is of the users, not of a file's layout.
        let same = try SignalingCredentials.tokens([TestUsers.token("bob"): "bob", TestUsers.token("alice"): "alice"])
        #expect(same.digest == first.digest && first.digest != older.digest)
    }

    /// Two instances; the stored users change (on the first): Alice, removed, is closed on the
    /// second (1008, saying why); Carol, whose token changed, too; Bob, unchanged, stays.
    @Test func usersRemovedOrChangedInTheStoredSetAreClosedOnEveryInstance() async throws {
        let url = try await PostgresTestServer.shared().database()
        let storages = [try PostgresStorage(url: url), try PostgresStorage(url: url)]
        let servers = [
            try await RunningServer.start(storage: .postgres(storages[0])),
            try await RunningServer.start(storage: .postgres(storages[1])),
        ]
        try await storages[0].storeCredentials(TestUsers.credentials)
        let alice = try await servers[1].raw()
        try await alice.login("alice")
        let carol = try await servers[1].raw()
        try await carol.login("carol")
        let bob = try await Peer.connect("bob", to: servers[1])
        let dave = try await Peer.connect("dave", to: servers[0])

        try await storages[0].storeCredentials(
            try SignalingCredentials.tokens([
                TestUsers.token("bob"): "bob", TestUsers.token("dave"): "dave", "carol-new-token-0123456789": "carol",
            ])
        )
        for (client, reason) in [(alice, "removed"), (carol, "changed")] {
            #expect(try await client.inbox.next(timeout: .seconds(10)).contains("\"error\""))
            try await client.inbox.waitFinished(timeout: .seconds(10))
            let closed = client.closedWith ?? ""
            #expect(closed.hasPrefix("policyViolation") && closed.contains(reason), "\(closed)")
        }
        // Bob and Dave are still served.
        #expect(try await bob.callLog().isEmpty)
        #expect(try await dave.callLog().isEmpty)
        #expect(await servers[1].server.connectedUsers == ["bob"])
        await bob.close()
        await dave.close()
        for server in servers { await server.stop() }
    }
}
