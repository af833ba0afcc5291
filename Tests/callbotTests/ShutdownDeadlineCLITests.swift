import Foundation
import PostgresTestSupport
import SocketTestSupport
import SwiftRTCSignaling
import TestScheduling
import Testing

/// `callbot serve --shutdown-timeout S`: a drain that hangs ends anyway. An instance on
/// PostgreSQL hands its users over to the other instances when SIGTERM comes, through the
/// database; with the database frozen (a relay that holds every byte, the connections open)
/// that hand-over never finishes, and without a deadline the process never exited.
@Suite(.serialized, .realTime) struct ShutdownDeadlineCLITests {
    @Test func aDrainThatHangsOnTheDatabaseEndsAtTheDeadline() async throws {
        let database = try await PostgresTestServer.shared().database()
        let port = try #require(URLComponents(string: database)?.port)
        let relay = try TCPRelay(toPort: UInt16(port))
        defer { relay.stop() }
        let relayed = database.replacingOccurrences(of: ":\(port)/", with: ":\(relay.port)/")
        let tokens = try ServeCLITests.write("deadline-tokens.txt", "alice:alice-token-0123456789\n")
        let server = try ServeCLITests.Server([
            "--port", "0", "--tokens", tokens, "--database", relayed, "--shutdown-timeout", "2",
        ])
        let url = try await server.ready()
        let alice = try await WebSocketSignalingChannel.connect(to: url, token: "alice-token-0123456789")
        defer { Task { await alice.close() } }
        relay.frozen = true
        let started = ContinuousClock.now
        let status = try await server.terminate(timeout: .seconds(30))
        let took = started.duration(to: .now)
        print("serve --shutdown-timeout 2, database frozen: exited \(status) after \(took)")
        // The 2 s drain, then cancellation; the forced exit 5 s after that at the latest.
        #expect(took < .seconds(2 + 5 + 3), "\(server.errors)")
        #expect(took > .seconds(1.5), "it exited before the deadline: \(server.errors)")
        relay.frozen = false
    }
}
