import Foundation
import TestScheduling
import Testing

/// `--max-audio-kbps` and `--max-video-kbps` on the commands that make calls: bad values are
/// clear errors; a capped `whip-server` answers with `b=AS`, and the `whip` client's encoder
/// stays under it (its report's `video.target_kbps`), with `bandwidth_estimate_kbps` set.
@Suite(.realTime) struct BandwidthCapsCLITests {
    @Test(arguments: [
        (["whip", "http://127.0.0.1:1/whip", "--max-video-kbps", "0"], "--max-video-kbps 0 is out of range"),
        (["whip", "http://127.0.0.1:1/whip", "--max-video-kbps", "fast"], "fast"),
        (
            ["whip", "http://127.0.0.1:1/whip", "--max-audio-kbps", "600"],
            "--max-audio-kbps 600 is out of range: Opus takes 6 to 510 kbit/s"
        ),
        (["whip-server", "--port", "0", "--max-audio-kbps=-5"], "--max-audio-kbps -5 is out of range"),
        (["whip-server", "--port", "0", "--max-video-kbps", "99999"], "--max-video-kbps 99999 is out of range"),
        (["demo", "--max-video-kbps", "10"], "--max-video-kbps 10 is out of range"),
    ])
    func badCapsAreClearErrors(arguments: [String], message: String) async throws {
        let result = try await Callbot.run(arguments)
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func demoTakesTheCaps() async throws {
        let help = try await Callbot.run(["demo", "--help"])
        #expect(help.stdout.contains("--max-audio-kbps <KBPS>") && help.stdout.contains("--max-video-kbps <KBPS>"))
    }

    @Test func capFromTheAnswerBoundsTheClientsEncoder() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "caps-\(UUID().uuidString.prefix(8))"
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let serverReport = folder.appendingPathComponent("server.json").path,
            clientReport = folder.appendingPathComponent("client.json").path
        // The server runs as a child whose output goes to a file: its READY line is polled
        // for, and SIGTERM ends it (it writes its report), without blocking a pool thread.
        let output = folder.appendingPathComponent("server.out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let server = Process()
        server.executableURL = Callbot.executable
        server.arguments = [
            "whip-server", "--port", "0", "--duration", "60", "--max-video-kbps", "200", "--report", serverReport,
        ]
        server.standardOutput = try FileHandle(forWritingTo: output)
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer { if server.isRunning { server.terminate() } }
        var url: String?
        for _ in 0..<600 where url == nil {
            try await Task.sleep(for: .milliseconds(100))
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            url = text.split(separator: "\n").first { $0.hasPrefix("READY ") }.map {
                String($0.dropFirst("READY ".count))
            }
        }
        let endpoint = try #require(url, "whip-server printed READY")
        let client = try await Callbot.run([
            "whip", endpoint, "--duration", "4", "--stats-interval", "1", "--report", clientReport,
        ])
        server.terminate()
        for _ in 0..<200 where server.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        #expect(client.status == 0, "\(client.stderr)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: clientReport)))
                as? [String: Any]
        )
        let video = try #require(json["video"] as? [String: Any])
        let target = try #require(video["target_kbps"] as? Int)
        let estimate = try #require(json["bandwidth_estimate_kbps"] as? Int)
        print(
            "callbot whip against whip-server --max-video-kbps 200: client video target \(target) kbit/s, estimate \(estimate) kbit/s"
        )
        #expect(target > 0 && target <= 200)
        #expect(estimate >= 30)
        let serverJSON = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: serverReport)))
                as? [String: Any]
        )
        #expect(serverJSON["bandwidth_estimate_kbps"] is Int)
    }
}
