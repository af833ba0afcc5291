import Foundation
import SwiftRTCSignaling
import Testing

@testable import SwiftRTCSignalingServer

/// `SignalingServer.replaceCredentials(_:)`, what `callbot serve` calls on SIGHUP: new logins
/// use the new users at once, the connections of users removed or whose token changed are
/// closed, the others stay; and the PostgreSQL password
/// given beside the URL (from a file or the environment) is the one used, never shown.
@Suite struct CredentialsReplacementTests {
    @Test func newLoginsUseTheReplacedUsersAndThoseRemovedOrChangedAreClosed() async throws {
        let running = try await RunningServer.start()
        let alice = try await running.raw()
        try await alice.login("alice")
        let dave = try await running.raw()
        try await dave.login("dave")
        let carol = try await Peer.connect("carol", to: running)
        let erinToken = "token-of-erin-0123456789"
        await #expect(throws: SignalingChannelError.self) {
            _ = try await WebSocketSignalingChannel.connect(to: running.url, token: erinToken, timeout: .seconds(30))
        }
        // Alice and bob leave the users, dave's token changes, erin comes in, carol stays.
        await running.server.replaceCredentials(
            try SignalingCredentials.tokens([
                erinToken: "erin", TestUsers.token("carol"): "carol", "new-token-of-dave-0123456789": "dave",
            ])
        )
        #expect(running.server.credentials.userIDs == ["carol", "dave", "erin"])
        // Alice and Dave, logged in before, are told why and closed (1008).
        for (client, reason) in [(alice, "removed from the server's users"), (dave, "credentials changed")] {
            let error = try await client.nextError()
            #expect(error.code == .unauthenticated && error.reason.contains(reason), "\(error)")
            try await client.inbox.waitFinished(timeout: .seconds(10))
            let closed = client.closedWith ?? ""
            #expect(closed.hasPrefix("policyViolation") && closed.contains(reason), "\(closed)")
        }
        let erin = try await WebSocketSignalingChannel.connect(to: running.url, token: erinToken, timeout: .seconds(30))
        #expect(erin.userID == "erin")
        await #expect(throws: SignalingChannelError.self) { _ = try await running.connect("bob") }
        await #expect(throws: SignalingChannelError.self) { _ = try await running.connect("alice") }
        // Carol, unchanged, is still served.
        #expect(try await carol.callLog().isEmpty)
        #expect(await running.server.connectedUsers == ["carol", "erin"])
        await carol.close()
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
