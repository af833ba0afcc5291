import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PostgresTestSupport
import TestScheduling
import Testing

/// Three `callbot serve` processes on one real PostgreSQL database (started by the tests) as
/// one server: users stored by the first, a four-person mesh with members logged in to three
/// different instances, and the operations endpoints.
@Suite(.serialized, .realTime) struct ServeClusterCLITests {
    typealias Server = ServeCLITests.Server
    typealias Background = CallCLITests.Background

    static let users = ["alice", "bob", "carol", "dave"]
    static func token(_ user: String) -> String { "\(user)-cluster-token-0123456789" }

    /// Three instances on a new database; the first stores the users, the others use them.
    static func cluster(extra: [String] = []) async throws -> (servers: [Server], urls: [String], database: String) {
        let database = try await PostgresTestServer.shared().database()
        let tokens = try ServeCLITests.write("cluster-tokens-\(UUID().uuidString.prefix(8)).txt",
                                             users.map { "\($0):\(token($0))" }.joined(separator: "\n") + "\n")
        var servers: [Server] = []
        var urls: [String] = []
        for index in 0..<3 {
            let server = try Server(["--port", "0", "--database", database] + (index == 0 ? ["--tokens", tokens] : []) + extra)
            // The first stores the users before the others start.
            urls.append(try await server.ready().absoluteString)
            servers.append(server)
        }
        return (servers, urls, database)
    }

    /// The body of `GET path` on the server of a WebSocket URL, with its status.
    static func get(_ webSocketURL: String, _ path: String) async throws -> (Int, String) {
        let base = webSocketURL.replacingOccurrences(of: "ws://", with: "http://").replacingOccurrences(of: "/signaling", with: "")
        let (data, response) = try await URLSession.shared.data(from: try #require(URL(string: base + path)))
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func aMeshAcrossThreeInstancesConnectsAndDecodesOnEveryPair() async throws {
        let (servers, urls, _) = try await Self.cluster()
        defer { for server in servers { Task { _ = try? await server.terminate() } } }
        // Bob, Carol and Dave answer on instances 1, 2 and 3; Alice calls them from instance 1.
        var answerers: [String: Background] = [:]
        for (index, user) in ["bob", "carol", "dave"].enumerated() {
            let answer = try Background(["answer", "--server", urls[index], "--token", Self.token(user), "--no-video", "--stats-interval", "2",
                                         "--duration", "6"])
            #expect(await answer.wait(for: "READY \(user)"), "\(answer.errors)")
            answerers[user] = answer
        }
        let alice = try Background(["call", "bob", "carol", "dave", "--server", urls[0], "--token", Self.token("alice"), "--audio-only",
                                    "--duration", "5", "--stats-interval", "2"])
        #expect(await alice.exit(timeout: .seconds(90)) == 0, "\(alice.output)\n\(alice.errors)")
        let everyone = ["alice": alice].merging(answerers) { first, _ in first }
        for (user, bot) in everyone {
            _ = await bot.exit(timeout: .seconds(30))
            let prefix = user == "alice" ? "call" : "answer"
            for other in Self.users where other != user {
                #expect(bot.output.contains("\(prefix): connected with \(other)"), "\(user) with \(other): \(bot.output)")
                // Its stats block for the other has audio arriving (kbps, not nothing).
                let block = bot.output.components(separatedBy: "--- \(prefix) stats with \(other) ---").dropFirst().last ?? ""
                let received = block.split(separator: "\n").first { $0.hasPrefix("AR ") } ?? ""
                #expect(received.contains("Kbps") && received.contains("opus"), "\(user) hears \(other): \(received)\n\(bot.output)")
            }
        }
        // The operations endpoints of an instance that did not store the users.
        #expect(try await Self.get(urls[2], "/healthz") == (200, "ok\n"))
        #expect(try await Self.get(urls[2], "/readyz") == (200, "ready\n"))
        let (status, metrics) = try await Self.get(urls[2], "/metrics")
        #expect(status == 200)
        #expect(metrics.contains(#"signaling_logins_total{result="ok"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"signaling_messages_routed_total{path="instance"}"#), "\(metrics)")
        // One record, the same from every instance's point of view (they share the log).
        let log = try await Callbot.run(["log", "--server", urls[1], "--token", Self.token("dave")])
        #expect(log.status == 0 && log.stdout.contains("completed"), "\(log.stdout)\n\(log.stderr)")
    }

    @Test func anInstanceWithoutUsersRefusesToStartOnAnEmptyDatabase() async throws {
        let database = try await PostgresTestServer.shared().database()
        let serve = try await Callbot.run(["serve", "--port", "0", "--database", database])
        #expect(serve.status == 1)
        #expect(serve.stderr.contains("no users are stored"), "\(serve.stderr)")
        let badURL = try await Callbot.run(["serve", "--port", "0", "--database", "postgres://nobody@127.0.0.1:1/x", "--tokens", "/dev/null"])
        #expect(badURL.status != 0)
    }
}
