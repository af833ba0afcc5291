import Foundation
import PostgresTestSupport
import TestScheduling
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Three `callbot serve` processes on one real PostgreSQL database (started by the tests) as
/// one server: users stored by the first, a four-person mesh with members logged in to three
/// different instances, and the operations endpoints.
@Suite(.serialized, .realTime) struct ServeClusterCLITests {
    typealias Server = ServeCLITests.Server
    typealias Background = CallCLITests.Background

    static let users = ["alice", "bob", "carol", "dave"]
    static func token(_ user: String) -> String { "\(user)-cluster-token-0123456789" }

    /// Three instances on a new database; the first stores the users (`USER:TOKEN` lines,
    /// by default the four of the mesh), the others use them.
    static func cluster(
        logins: [String] = users.map { "\($0):\(token($0))" },
        extra: [String] = []
    )
        async throws -> (servers: [Server], urls: [String], database: String)
    {
        let database = try await PostgresTestServer.shared().database()
        let tokens = try ServeCLITests.write(
            "cluster-tokens-\(UUID().uuidString.prefix(8)).txt",
            logins.joined(separator: "\n") + "\n"
        )
        var servers: [Server] = []
        var urls: [String] = []
        for index in 0..<3 {
            let server = try Server(
                ["--port", "0", "--database", database] + (index == 0 ? ["--tokens", tokens] : []) + extra
            )
            // The first stores the users before the others start.
            urls.append(try await server.ready().absoluteString)
            servers.append(server)
        }
        return (servers, urls, database)
    }

    /// The body of `GET path` on the server of a WebSocket URL, with its status.
    static func get(_ webSocketURL: String, _ path: String) async throws -> (Int, String) {
        let base = webSocketURL.replacingOccurrences(of: "ws://", with: "http://").replacingOccurrences(
            of: "/signaling",
            with: ""
        )
        let (data, response) = try await URLSession.shared.data(from: try #require(URL(string: base + path)))
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func aMeshAcrossThreeInstancesConnectsAndDecodesOnEveryPair() async throws {
        let (servers, urls, _) = try await Self.cluster()
        defer { for server in servers { Task { _ = try? await server.terminate() } } }
        // Bob, Carol and Dave answer on instances 1, 2 and 3; Alice calls them from instance 1.
        var answerers: [String: Background] = [:]
        for (index, user) in ["bob", "carol", "dave"].enumerated() {
            let answer = try Background([
                "answer", "--server", urls[index], "--token", Self.token(user), "--no-video", "--stats-interval", "2",
                "--duration", "6",
            ])
            #expect(await answer.wait(for: "READY \(user)"), "\(answer.errors)")
            answerers[user] = answer
        }
        let alice = try Background([
            "call", "bob", "carol", "dave", "--server", urls[0], "--token", Self.token("alice"), "--audio-only",
            "--duration", "5", "--stats-interval", "2",
        ])
        #expect(await alice.exit(timeout: .seconds(90)) == 0, "\(alice.output)\n\(alice.errors)")
        let everyone = ["alice": alice].merging(answerers) { first, _ in first }
        for (user, bot) in everyone {
            _ = await bot.exit(timeout: .seconds(30))
            let prefix = user == "alice" ? "call" : "answer"
            for other in Self.users where other != user {
                #expect(
                    bot.output.contains("\(prefix): connected with \(other)"),
                    "\(user) with \(other): \(bot.output)"
                )
                // Its stats block for the other has audio arriving (kbps, not nothing).
                let block =
                    bot.output.components(separatedBy: "--- \(prefix) stats with \(other) ---").dropFirst().last ?? ""
                let received = block.split(separator: "\n").first { $0.hasPrefix("AR ") } ?? ""
                #expect(
                    received.contains("Kbps") && received.contains("opus"),
                    "\(user) hears \(other): \(received)\n\(bot.output)"
                )
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
        let badURL = try await Callbot.run([
            "serve", "--port", "0", "--database", "postgres://nobody@127.0.0.1:1/x", "--tokens", "/dev/null",
        ])
        #expect(badURL.status != 0)
    }
}

extension ServeClusterCLITests {
    /// The audio frames `bot` decoded from `other`, one figure per `STATS other {...}` line.
    static func audioFramesDecoded(_ bot: Background, from other: String) -> [Int] {
        bot.output.split(separator: "\n").filter { $0.hasPrefix("STATS \(other) {") }.compactMap { line in
            let json =
                try? JSONSerialization.jsonObject(with: Data(line.dropFirst("STATS \(other) ".count).utf8))
                as? [String: Any]
            let stats = json?["stats"] as? [String: [String: Any]] ?? [:]
            let inbound = stats.values.first {
                $0["type"] as? String == "inbound-rtp" && $0["kind"] as? String == "audio"
            }
            return inbound?["framesDecoded"] as? Int
        }
    }

    /// SIGKILL on the instance Bob is logged in to, mid-call: Bob's client moves to another
    /// instance, the call's audio never stops (it does not pass through the server), Alice's
    /// hang-up reaches Bob there, and the shared call log has the whole call.
    @Test func aCallGoesOnWhenTheInstanceOfOneSideIsKilled() async throws {
        let (servers, urls, _) = try await Self.cluster()
        defer { for server in servers { Task { _ = try? await server.terminate() } } }
        let bob = try Background([
            "answer", "--server", urls[1], "--server", urls[2], "--token", Self.token("bob"), "--no-video",
            "--stats-interval", "1", "--stats-json",
        ])
        #expect(await bob.wait(for: "READY bob"), "\(bob.errors)")
        let alice = try Background([
            "call", "bob", "--server", urls[0], "--server", urls[2], "--token", Self.token("alice"), "--audio-only",
            "--duration", "12", "--stats-interval", "1", "--stats-json",
        ])
        #expect(await alice.wait(for: "call: connected with bob"), "\(alice.output)\n\(alice.errors)")
        #expect(await bob.wait(for: "answer: connected with alice"), "\(bob.output)\n\(bob.errors)")
        try await Task.sleep(for: .seconds(2))

        let killed = ContinuousClock.now
        kill(servers[1].process.processIdentifier, SIGKILL)
        #expect(
            await bob.wait(for: "signaling: connected to \(urls[2])", timeout: .seconds(20)),
            "\(bob.output)\n\(bob.errors)"
        )
        print("failover: Bob logged in to the third instance \(ContinuousClock.now - killed) after the kill")
        #expect(!alice.output.contains("signaling: "), "Alice's instance stayed: \(alice.output)")

        #expect(await alice.exit(timeout: .seconds(60)) == 0, "\(alice.output)\n\(alice.errors)")
        #expect(await bob.exit(timeout: .seconds(30)) == 0, "\(bob.output)\n\(bob.errors)")
        #expect(bob.output.contains("answer: alice hung up"), "\(bob.output)")
        #expect(bob.output.contains("answer: ended completed"), "\(bob.output)")
        // Audio decoded on both sides every second of the call, before and after the kill.
        for (bot, other) in [(alice, "bob"), (bob, "alice")] {
            let decoded = Self.audioFramesDecoded(bot, from: other)
            let steps = zip(decoded, decoded.dropFirst()).map { $1 - $0 }
            #expect(
                decoded.count >= 9 && steps.allSatisfy { $0 >= 10 },
                "frames decoded from \(other) each second: \(decoded)"
            )
        }

        // The record, read through the instance Alice used: both users, completed, the whole call.
        let log = try await Callbot.run(["log", "--server", urls[0], "--token", Self.token("bob"), "--json"])
        #expect(log.status == 0, "\(log.stderr)")
        let records = try #require(
            try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]],
            "\(log.stdout)"
        )
        #expect(records.count == 1, "\(log.stdout)")
        let record = try #require(records.first)
        #expect(record["caller"] as? String == "alice" && record["callees"] as? [String] == ["bob"], "\(record)")
        #expect(record["result"] as? String == "completed", "\(record)")
        let duration = record["duration"] as? Double ?? 0
        #expect(duration >= 11 && duration < 30, "\(record)")
    }
}

extension ServeClusterCLITests {
    /// `callbot load`: 200 bots spread over the three instances call each other in pairs
    /// (each pair's members on different instances), and every call connects and decodes. The
    /// starts are spread over 20 s, so that the load leaves the tests beside it some CPU: the
    /// tests' debug build costs several times the release build's (Benchmarks/cluster-load.sh
    /// measures 1000 bots in release).
    @Test func twoHundredBotsAcrossThreeInstancesAllConnect() async throws {
        let logins = (0..<200).map { "load-bot-\($0):load-token-\($0)-0123456789abcdef" }
        let (servers, urls, _) = try await Self.cluster(logins: logins, extra: ["--max-connections-per-address", "80"])
        defer { for server in servers { Task { _ = try? await server.terminate() } } }
        let tokens = try ServeCLITests.write(
            "load-logins-\(UUID().uuidString.prefix(8)).txt",
            logins.joined(separator: "\n") + "\n"
        )
        let run = try await LoadCLITests.load(
            urls.flatMap { ["--server", $0] } + ["--tokens-file", tokens, "--duration", "3", "--ramp", "20"]
        )
        let output = "\(run.stdout)\n\(run.stderr)\n\(servers.map(\.errors).joined(separator: "\n"))"
        print("load across three instances: \(run.stdout)")
        #expect(run.status == 0, "\(output)")
        #expect(run.report["servers"] as? Int == 3)
        try LoadCLITests.expectAllConnected(
            run.report,
            calls: 100,
            bots: 200,
            groupSize: 2,
            seconds: 3,
            output: output,
            openAtOnce: 20
        )
        // Each instance held its share of the bots and routed messages to the others.
        for url in urls {
            let (status, metrics) = try await Self.get(url, "/metrics")
            #expect(status == 200)
            #expect(metrics.contains(#"signaling_messages_routed_total{path="instance"}"#), "\(url): \(metrics)")
        }
    }
}

extension ServeClusterCLITests {
    /// SIGTERM drains an instance (swift-service-lifecycle): its client is told to move, logs
    /// in to another instance, and the instance exits 0 once the client is there.
    @Test func sigtermMovesTheClientsOfAnInstanceElsewhere() async throws {
        let (servers, urls, _) = try await Self.cluster()
        defer { for server in servers { Task { _ = try? await server.terminate() } } }
        let bob = try Background(["answer", "--server", urls[1], "--server", urls[2], "--token", Self.token("bob")])
        #expect(await bob.wait(for: "READY bob"), "\(bob.errors)")
        let started = ContinuousClock.now
        #expect(try await servers[1].terminate() == 0, "\(servers[1].errors)")
        #expect(ContinuousClock.now - started < .seconds(15), "the drain waited for the whole grace")
        #expect(
            await bob.wait(for: "signaling: connected to \(urls[2])", timeout: .seconds(20)),
            "\(bob.output)\n\(bob.errors)"
        )
        #expect(bob.output.contains("signaling: reconnecting (attempt 1): "), "\(bob.output)")
    }
}
