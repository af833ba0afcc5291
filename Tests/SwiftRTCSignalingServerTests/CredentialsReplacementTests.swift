import Foundation
import SwiftRTCSignaling
import Testing

@testable import SwiftRTCSignalingServer

/// `SignalingServer.replaceCredentials(_:)`, what `callbot serve` calls on SIGHUP: new logins
/// use the new users at once, connections already logged in stay; and the PostgreSQL password
/// given beside the URL (from a file or the environment) is the one used, never shown.
@Suite struct CredentialsReplacementTests {
    @Test func newLoginsUseTheReplacedUsersAndThoseLoggedInStay() async throws {
        let running = try await RunningServer.start()
        let alice = try await running.connect("alice")
        let erinToken = "token-of-erin-0123456789"
        await #expect(throws: SignalingChannelError.self) {
            _ = try await WebSocketSignalingChannel.connect(to: running.url, token: erinToken, timeout: .seconds(30))
        }
        // Alice and bob leave the users, erin comes in.
        running.server.replaceCredentials(
            try SignalingCredentials.tokens([erinToken: "erin", TestUsers.token("carol"): "carol"])
        )
        #expect(running.server.credentials.userIDs == ["carol", "erin"])
        let erin = try await WebSocketSignalingChannel.connect(to: running.url, token: erinToken, timeout: .seconds(30))
        #expect(erin.userID == "erin")
        await #expect(throws: SignalingChannelError.self) { _ = try await running.connect("bob") }
        await #expect(throws: SignalingChannelError.self) { _ = try await running.connect("alice") }
        // Alice, logged in before, is still connected: erin reaches her.
        #expect(await running.server.connectedUsers == ["alice", "erin"])
        await alice.close()
        await erin.close()
        await running.stop()
    }

    @Test func aPasswordGivenBesideTheURLReplacesTheURLsAndIsNotShown() throws {
        let (given, shown) = try PostgresStorage.configuration(
            parsing: "postgres://callbot@db.example.org/calls",
            password: "from-a-file"
        )
        #expect(given.password == "from-a-file")
        #expect(shown == "postgres://callbot@db.example.org:5432/calls")
        let (inURL, shownInURL) = try PostgresStorage.configuration(
            parsing: "postgres://callbot:in%2Durl@127.0.0.1/calls"
        )
        #expect(inURL.password == "in-url")
        #expect(!shownInURL.contains("in-url") && !shownInURL.contains("in%2Durl"), "\(shownInURL)")
        let (replaced, _) = try PostgresStorage.configuration(
            parsing: "postgres://callbot:in-url@127.0.0.1/calls",
            password: "from-the-environment"
        )
        #expect(replaced.password == "from-the-environment")
    }

    /// A URL that does not parse (a password with `#` or `/` unescaped) is quoted without
    /// what may be its password.
    @Test func aURLThatDoesNotParseIsQuotedWithoutItsPassword() {
        #expect(
            PostgresStorage.withoutPassword("postgres://u:pa#ss/x@127.0.0.1/db") == "postgres://u:***@127.0.0.1/db"
        )
        #expect(PostgresStorage.withoutPassword("postgres://u@127.0.0.1/db") == "postgres://u@127.0.0.1/db")
        #expect(PostgresStorage.withoutPassword("not a url") == "not a url")
        #expect(throws: PostgresStorageError.invalidURL("'postgres://u:***@127.0.0.1/db' is not a postgres:// URL")) {
            _ = try PostgresStorage.configuration(parsing: "postgres://u:pa#ss/x@127.0.0.1/db")
        }
    }
}
