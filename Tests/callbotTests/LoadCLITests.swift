import Foundation
import TestScheduling
import Testing

/// `callbot load` as a process against a real `callbot serve`: bots in pairs and in a mesh
/// call each other with real media, and the JSON report says every call connected and decoded
/// audio; bad command lines are refused with a clear message.
@Suite(.serialized, .realTime) struct LoadCLITests {
    typealias Server = ServeCLITests.Server

    /// A server with `bots` users in a tokens file (tokens as long as the server requires),
    /// letting that many connections in from loopback.
    static func server(bots: Int) async throws -> (server: Server, url: String, tokens: String) {
        let lines = (0..<bots).map { "load-bot-\($0):load-token-\($0)-0123456789abcdef" }
        let tokens = try ServeCLITests.write(
            "load-tokens-\(UUID().uuidString.prefix(8)).txt",
            "# load test users\n" + lines.joined(separator: "\n") + "\n"
        )
        let server = try Server(["--port", "0", "--tokens", tokens, "--max-connections-per-address", "\(bots + 8)"])
        return (server, try await server.ready().absoluteString, tokens)
    }

    /// Runs `callbot load` and returns its status, output and report.
    static func load(
        _ arguments: [String]
    ) async throws -> (status: Int32, stdout: String, stderr: String, report: [String: Any]) {
        let path = ServeCLITests.folder.appendingPathComponent("load-\(UUID().uuidString.prefix(8)).json").path
        let run = try await Callbot.run(["load"] + arguments + ["--report", path])
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let report = try #require(
            try JSONSerialization.jsonObject(with: data) as? [String: Any],
            "\(run.stdout)\n\(run.stderr)"
        )
        return (run.status, run.stdout, run.stderr, report)
    }

    /// What every passing run's report must say.
    /// `openAtOnce`: how many bots were logged in at the same time, at least (all of them
    /// unless the starts were spread wider than a call lasts).
    static func expectAllConnected(
        _ report: [String: Any],
        calls: Int,
        bots: Int,
        groupSize: Int,
        seconds: Double,
        output: String,
        openAtOnce: Int? = nil
    ) throws {
        #expect(report["bots"] as? Int == bots, "\(output)")
        #expect(report["group_size"] as? Int == groupSize)
        #expect(report["audio_only"] as? Bool == true)
        #expect(report["calls_attempted"] as? Int == calls)
        #expect(report["calls_connected"] as? Int == calls, "\(output)")
        #expect(report["calls_decoded_audio"] as? Int == calls, "\(output)")
        #expect(report["calls_failed"] as? Int == 0)
        #expect((report["failures"] as? [String: Int])?.isEmpty == true, "\(report["failures"] ?? "")")
        let setup = try #require(report["setup_ms"] as? [String: Int])
        let p50 = try #require(setup["p50"]), p95 = try #require(setup["p95"]), max = try #require(setup["max"])
        #expect(p50 > 0 && p50 <= p95 && p95 <= max, "\(setup)")
        #expect(try #require((report["login_ms"] as? [String: Int])?["max"]) > 0)
        // Each member of each call sends 50 packets a second to each other member.
        let connections = calls * groupSize * (groupSize - 1)
        let sent = try #require(report["packets_sent"] as? Int),
            received = try #require(report["packets_received"] as? Int)
        #expect(sent >= Int(Double(connections) * seconds * 50 * 0.8), "\(sent) packets sent")
        #expect(received > 0 && received <= sent)
        #expect(report["packets_lost"] as? Int == 0)
        #expect(report["loss_fraction"] as? Double == 0)
        let frames = try #require(report["audio_frames_decoded"] as? Int)
        #expect(frames >= Int(Double(connections) * seconds * 50 * 0.8), "\(frames) audio frames decoded")
        #expect(try #require(report["cpu_seconds"] as? Double) > 0)
        #expect(try #require(report["cpu_seconds_per_call"] as? Double) > 0)
        #expect(try #require(report["peak_rss_mb"] as? Double) > 0)
        #expect(try #require(report["peak_open_files"] as? Int) > openAtOnce ?? bots)
    }

    @Test func twentyBotsInPairsAllConnectAndDecodeAudio() async throws {
        let (server, url, tokens) = try await Self.server(bots: 20)
        defer { Task { _ = try? await server.terminate() } }
        let run = try await Self.load([
            "--server", url, "--tokens-file", tokens, "--bots", "20", "--duration", "4", "--ramp", "1",
            "--progress-interval", "1",
        ])
        let output = "\(run.stdout)\n\(run.stderr)\n\(server.errors)"
        #expect(run.status == 0, "\(output)")
        // A progress line a second while the calls run: logins, calls up, then calls ended.
        let progress = run.stderr.split(separator: "\n").filter { $0.hasPrefix("load: ") }
        #expect(progress.count >= 3, "\(run.stderr)")
        #expect(progress.contains { $0.contains(": 20/20 bots logged in, 10 calls up, 0 of 10 ended") }, "\(progress)")
        #expect(
            run.stdout.hasPrefix("load: 10/10 calls connected, 10 decoded audio, 0 failed; setup p50 "),
            "\(output)"
        )
        try Self.expectAllConnected(run.report, calls: 10, bots: 20, groupSize: 2, seconds: 4, output: output)
    }

    @Test func meshesOfThreeOverTwoServerURLsAllConnect() async throws {
        let (server, url, tokens) = try await Self.server(bots: 10)
        defer { Task { _ = try? await server.terminate() } }
        // Ten logins make three meshes of three; the tenth bot stays out. The same server
        // twice, by two names, stands for two instances.
        let other = url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let run = try await Self.load([
            "--server", url, "--server", other, "--tokens-file", tokens, "--group-size", "3",
            "--duration", "3", "--ramp", "0.5",
        ])
        let output = "\(run.stdout)\n\(run.stderr)\n\(server.errors)"
        #expect(run.status == 0, "\(output)")
        #expect(run.report["servers"] as? Int == 2)
        try Self.expectAllConnected(run.report, calls: 3, bots: 9, groupSize: 3, seconds: 3, output: output)
    }

    @Test(arguments: [
        (["--tokens-file", "@/t"], "give the signaling server: --server URL"),
        (["--server", "http://127.0.0.1:1/signaling", "--tokens-file", "@/t"], "is not a WebSocket URL"),
        (["--server", "ws://127.0.0.1:1/signaling"], "give the bots' logins"),
        (
            ["--server", "ws://127.0.0.1:1/signaling", "--tokens-file", "@/t", "--token", "x-0123456789abcdef"],
            "give the bots' logins: one of"
        ),
        (
            ["--server", "ws://127.0.0.1:1/signaling", "--tokens-file", "@/t", "--group-size", "5"],
            "--group-size must be 2 to 4, not 5"
        ),
        (
            ["--server", "ws://127.0.0.1:1/signaling", "--tokens-file", "@/t", "--bots", "100000"],
            "--bots must be 2 (the group size) to 5000"
        ),
        (
            ["--server", "ws://127.0.0.1:1/signaling", "--tokens-file", "@/t", "--bots", "5"],
            "--bots 5: only 4 logins given"
        ),
        (
            ["--server", "ws://127.0.0.1:1/signaling", "--tokens-file", "@/t", "--duration", "inf"],
            "--duration must be a number of seconds"
        ),
        (
            ["--server", "ws://127.0.0.1:1/signaling", "--tokens-file", "@/t", "--ramp=-1"],
            "--ramp must be a number of seconds from 0"
        ),
        (
            ["--server", "ws://127.0.0.1:1/signaling", "--tokens-file", "@/missing.txt"],
            "--tokens-file @/missing.txt: cannot read it"
        ),
        (
            ["--server", "ws://127.0.0.1:1/signaling", "--tokens-file", "@/bad-load-tokens.txt"],
            "--tokens-file @/bad-load-tokens.txt:2: user a appears twice"
        ),
        (
            [
                "--server", "ws://127.0.0.1:1/signaling", "--token", "a-0123456789abcdef", "--token",
                "a-0123456789abcdef",
            ], "--token number 2 repeats an earlier one"
        ),
    ])
    func badOptionsAreRefusedClearly(arguments: [String], message: String) async throws {
        _ = try ServeCLITests.write(
            "t",
            "a:a-token-0123456789abcdef\nb:b-token-0123456789abcdef\nc:c-token-0123456789abcdef\nd:d-token-0123456789abcdef\n"
        )
        _ = try ServeCLITests.write("bad-load-tokens.txt", "a:a-token-0123456789abcdef\na:b-token-0123456789abcdef\n")
        let resolved = arguments.map { $0.replacingOccurrences(of: "@/", with: ServeCLITests.folder.path + "/") }
        let result = try await Callbot.run(["load"] + resolved)
        #expect(result.status != 0)
        let expected = message.replacingOccurrences(of: "@/", with: ServeCLITests.folder.path + "/")
        #expect(result.stderr.contains(expected), "\(result.stderr)")
    }
}
