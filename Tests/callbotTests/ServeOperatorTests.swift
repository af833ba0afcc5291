import Foundation
import PostgresTestSupport
import SwiftRTCSignaling
import TestScheduling
import Testing

/// What an operator relies on in `callbot serve`: SIGHUP (`systemctl reload`) reads the users
/// file again, a file that does not load keeps the users before, and the PostgreSQL password
/// comes from a file or the environment and is never printed. The signal goes to the server's
/// process, never to the test runner.
@Suite struct ServeOperatorTests {
    typealias Server = ServeCLITests.Server

    static func write(_ contents: String, to path: String) throws {
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
    }

    static func fileName(_ prefix: String) -> String {
        ServeCLITests.folder.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8)).txt").path
    }

    /// Whether `token` logs in at `url` (as `user`); a refused login is false, after which the
    /// server must still be running (a refusal, not a dead server).
    static func logsIn(_ token: String, at url: URL, as user: String? = nil, server: Server) async throws -> Bool {
        do {
            let channel = try await WebSocketSignalingChannel.connect(to: url, token: token)
            defer { Task { await channel.close() } }
            if let user { #expect(channel.userID == user) }
            return true
        } catch {
            #expect(server.process.isRunning, "the server died: \(server.errors)")
            return false
        }
    }

    /// Waits until the server's standard error holds `text` `count` times.
    static func waitForLog(_ server: Server, _ text: String, count: Int = 1) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while server.errors.components(separatedBy: text).count - 1 < count {
            guard ContinuousClock.now < deadline, server.process.isRunning else {
                throw ServeCLITests.CLIFailure("no '\(text)' (×\(count)) in the server's log: \(server.errors)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test func sighupReloadsTheTokensFileAndABadFileKeepsTheUsersBefore() async throws {
        let tokens = Self.fileName("reload-tokens")
        try Self.write("alice:alice-reload-token-0123456789\nbob:bob-reload-token-0123456789\n", to: tokens)
        let server = try Server(["--port", "0", "--tokens", tokens])
        let url = try await server.ready()
        let alice = try await WebSocketSignalingChannel.connect(to: url, token: "alice-reload-token-0123456789")
        #expect(try await Self.logsIn("carol-reload-token-0123456789", at: url, server: server) == false)

        // Alice leaves the file, carol comes in, bob's token changes.
        try Self.write("bob:bob-new-token-0123456789\ncarol:carol-reload-token-0123456789\n", to: tokens)
        kill(server.process.processIdentifier, SIGHUP)
        try await Self.waitForLog(server, "SIGHUP: reloaded --tokens \(tokens): 2 users")
        #expect(try await Self.logsIn("carol-reload-token-0123456789", at: url, as: "carol", server: server))
        #expect(try await Self.logsIn("bob-new-token-0123456789", at: url, as: "bob", server: server))
        #expect(try await Self.logsIn("alice-reload-token-0123456789", at: url, server: server) == false)
        #expect(try await Self.logsIn("bob-reload-token-0123456789", at: url, server: server) == false)
        // Alice, logged in before, is removed: told why and closed, and the log says so.
        // (`next` throws when no such error comes within 30 s.)
        _ = try await ServeCLITests.next(on: alice) {
            if case let .error(error) = $0.body { error.reason == "removed from the server's users" } else { false }
        }
        try await Self.waitForLog(
            server,
            "the users changed: closed the connections of 1 removed or with other credentials: alice"
        )

        // A file that does not parse: the users before stay, and the log says why.
        try Self.write("carol:carol-reload-token-0123456789\ndave dave-token-0123456789\n", to: tokens)
        kill(server.process.processIdentifier, SIGHUP)
        try await Self.waitForLog(server, "error: SIGHUP: reloading --tokens failed: \(tokens):2: expected USER:SECRET")
        #expect(server.errors.contains("the 2 users loaded before stay"), "\(server.errors)")
        #expect(try await Self.logsIn("bob-new-token-0123456789", at: url, as: "bob", server: server))
        #expect(try await Self.logsIn("dave-token-0123456789", at: url, server: server) == false)
        // A file that is gone: the same.
        try FileManager.default.removeItem(atPath: tokens)
        kill(server.process.processIdentifier, SIGHUP)
        try await Self.waitForLog(server, "error: SIGHUP: reloading --tokens failed: cannot read \(tokens)")
        #expect(try await Self.logsIn("carol-reload-token-0123456789", at: url, as: "carol", server: server))

        // No token is ever logged.
        for token in ["alice-reload", "bob-reload", "bob-new", "carol-reload", "dave-token"] {
            #expect(!server.errors.contains(token) && !server.output.contains(token), "\(token) printed")
        }
        await alice.close()
        #expect(try await server.terminate() == 0)
    }

    @Test func sighupReloadsTheUsersFile() async throws {
        func line(_ user: String, _ password: String) async throws -> String {
            let result = try await Callbot.run(["serve", "--hash-password", user], stdin: password + "\n")
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let users = Self.fileName("reload-users")
        try Self.write(try await line("erin", "erin horse battery") + "\n", to: users)
        let server = try Server(["--port", "0", "--users", users])
        let url = try await server.ready()
        #expect(try await Self.logsIn("erin:erin horse battery", at: url, as: "erin", server: server))
        try Self.write(try await line("erin", "erin staple") + "\n", to: users)
        kill(server.process.processIdentifier, SIGHUP)
        try await Self.waitForLog(server, "SIGHUP: reloaded --users \(users): 1 user\n")
        #expect(try await Self.logsIn("erin:erin staple", at: url, as: "erin", server: server))
        #expect(try await Self.logsIn("erin:erin horse battery", at: url, server: server) == false)
        #expect(try await server.terminate() == 0)
    }

    /// Two instances on one PostgreSQL database: the password from a file, then from the
    /// environment (trust authentication here: what is checked is that the options are taken
    /// and the password is never printed); SIGHUP on the first stores its reloaded users for
    /// both.
    @Test func thePasswordFromAFileOrTheEnvironmentAndAReloadSharedByInstances() async throws {
        let database = try await PostgresTestServer.shared().database()
        let secret = "pg-secret-\(UUID().uuidString.prefix(8))"
        let passwordFile = Self.fileName("database-password")
        try Self.write(secret + "\n", to: passwordFile)
        let tokens = Self.fileName("shared-tokens")
        try Self.write("alice:alice-shared-token-0123456789\n", to: tokens)
        let first = try Server([
            "--port", "0", "--database", database, "--database-password-file", passwordFile, "--tokens", tokens,
        ])
        let firstURL = try await first.ready()
        let second = try Server(
            ["--port", "0", "--database", database],
            environment: ["SWIFTRTC_DATABASE_PASSWORD": secret]
        )
        let secondURL = try await second.ready()
        #expect(try await Self.logsIn("alice-shared-token-0123456789", at: secondURL, as: "alice", server: second))

        try Self.write("frank:frank-shared-token-0123456789\n", to: tokens)
        kill(first.process.processIdentifier, SIGHUP)
        try await Self.waitForLog(first, "SIGHUP: reloaded --tokens \(tokens): 1 user\n")
        #expect(try await Self.logsIn("frank-shared-token-0123456789", at: firstURL, as: "frank", server: first))
        // The second hears of the change from the database (LISTEN/NOTIFY).
        let deadline = ContinuousClock.now + .seconds(20)
        var frank = false
        while !frank, ContinuousClock.now < deadline {
            frank = try await Self.logsIn("frank-shared-token-0123456789", at: secondURL, as: "frank", server: second)
            if !frank { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(frank, "the second instance did not take the reloaded users: \(second.errors)")
        #expect(try await Self.logsIn("alice-shared-token-0123456789", at: secondURL, server: second) == false)
        // The second has no file to read again: it says so and keeps the stored users.
        kill(second.process.processIdentifier, SIGHUP)
        try await Self.waitForLog(second, "SIGHUP: no --tokens or --users file to read again")

        #expect(try await first.terminate() == 0)
        #expect(try await second.terminate() == 0)
        for server in [first, second] {
            #expect(!server.errors.contains(secret) && !server.output.contains(secret), "the password was printed")
        }
    }

    /// Instances sharing PostgreSQL, each started with its own copy of the users file: one
    /// started with an older copy than the one whose users are stored keeps the stored users
    /// (and says so) instead of replacing them for every instance; a newer file replaces them.
    @Test func anInstanceStartedWithAnOlderUsersFileKeepsTheNewerStoredUsers() async throws {
        let database = try await PostgresTestServer.shared().database()
        let newer = Self.fileName("newer-tokens")
        try Self.write("bob:bob-newer-token-0123456789\n", to: newer)
        let older = Self.fileName("older-tokens")
        try Self.write("alice:alice-older-token-0123456789\n", to: older)
        let now = Date()
        try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-3600)], ofItemAtPath: older)
        try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-60)], ofItemAtPath: newer)
        let first = try Server(["--port", "0", "--database", database, "--tokens", newer])
        let firstURL = try await first.ready()
        let second = try Server(["--port", "0", "--database", database, "--tokens", older])
        let secondURL = try await second.ready()
        #expect(try await Self.logsIn("bob-newer-token-0123456789", at: secondURL, as: "bob", server: second))
        #expect(try await Self.logsIn("bob-newer-token-0123456789", at: firstURL, as: "bob", server: first))
        #expect(try await Self.logsIn("alice-older-token-0123456789", at: firstURL, server: first) == false)
        try await Self.waitForLog(second, "\(older) (modified ")
        #expect(second.errors.contains("is older than the users stored"), "\(second.errors)")

        // The second's file, written again, is the newest: SIGHUP stores it for both.
        try Self.write("carol:carol-newest-token-0123456789\n", to: older)
        kill(second.process.processIdentifier, SIGHUP)
        try await Self.waitForLog(second, "SIGHUP: reloaded --tokens \(older): 1 user\n")
        let deadline = ContinuousClock.now + .seconds(20)
        var carol = false
        while !carol, ContinuousClock.now < deadline {
            carol = try await Self.logsIn("carol-newest-token-0123456789", at: firstURL, as: "carol", server: first)
            if !carol { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(carol, "the first instance did not take the newer users: \(first.errors)")
        #expect(try await Self.logsIn("bob-newer-token-0123456789", at: firstURL, server: first) == false)
        #expect(try await first.terminate() == 0)
        #expect(try await second.terminate() == 0)
    }

    @Test(arguments: [
        (["--database-password-file", "@/password.txt"], "--database-password-file is the password of a postgres://"),
        (
            ["--database", "postgres://u:in-url@127.0.0.1/db", "--database-password-file", "@/password.txt"],
            "--database holds a password and --database-password-file gives one"
        ),
        (
            ["--database", "postgres://u@127.0.0.1/db", "--database-password-file", "@/missing-password.txt"],
            "--database-password-file @/missing-password.txt: cannot read it"
        ),
        (
            ["--database", "postgres://u@127.0.0.1/db", "--database-password-file", "@/empty-password.txt"],
            "--database-password-file @/empty-password.txt: it is empty"
        ),
        // A password that breaks the URL (unescaped '#'): the error leaves it out.
        (
            ["--database", "postgres://u:pa#ss-secret/x@127.0.0.1/db"],
            "'postgres://u:***@127.0.0.1/db' is not a postgres"
        ),
    ])
    func badPasswordOptionsAreClearErrorsThatQuoteNoPassword(arguments: [String], message: String) async throws {
        let folder = ServeCLITests.folder.path
        try Self.write("pg-file-secret\n", to: folder + "/password.txt")
        try Self.write("\n", to: folder + "/empty-password.txt")
        try Self.write("alice:alice-token-0123456789\n", to: folder + "/operator-tokens.txt")
        let resolved = arguments.map { $0.replacingOccurrences(of: "@/", with: folder + "/") }
        let result = try await Callbot.run(
            ["serve", "--port", "0", "--tokens", folder + "/operator-tokens.txt"] + resolved
        )
        #expect(result.status != 0)
        let expected = message.replacingOccurrences(of: "@/", with: folder + "/")
        #expect(result.stderr.contains(expected), "\(result.stderr)")
        for secret in ["pg-file-secret", "in-url", "ss-secret"] {
            #expect(!result.stderr.contains(secret) && !result.stdout.contains(secret), "\(secret) printed")
        }
    }
}
