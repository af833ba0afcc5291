import Foundation
import TestScheduling
import Testing

/// `callbot whip` and `whip-server` runs that end without a call: the report is still
/// written, with `null` for what cannot be known, and the exit code says the call failed.
@Suite(.realTime) struct WhipRunTests {
    static func reportObject(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func whipToAClosedPortFailsWithAReport() async throws {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent(
            "whip-closed-\(UUID().uuidString).json"
        ).path
        defer { try? FileManager.default.removeItem(atPath: report) }
        // Nothing listens on TCP port 1 of the loopback address.
        let result = try await Callbot.run(["whip", "http://127.0.0.1:1/whip", "--duration", "1", "--report", report])
        #expect(result.status == 69, "no endpoint reached")
        #expect(result.stderr.contains("WHIP POST http://127.0.0.1:1/whip"), "\(result.stderr)")
        let json = try Self.reportObject(report)
        #expect(json["peer"] as? String == "callbot")
        #expect(json["role"] as? String == "whip-client")
        #expect(json["connected"] as? Bool == false)
        // Unknown values are written as null, not left out.
        #expect(json["ice_connected_ms"] is NSNull)
        #expect(json["dtls_connected_ms"] is NSNull)
        let audio = try #require(json["audio"] as? [String: Any])
        let video = try #require(json["video"] as? [String: Any])
        for key in ["rtp_packets_received", "frames_decoded", "rms"] { #expect(audio[key] is NSNull, "audio.\(key)") }
        for key in ["rtp_packets_received", "frames_decoded", "width", "height"] {
            #expect(video[key] is NSNull, "video.\(key)")
        }
        let errors = try #require(json["errors"] as? [String])
        #expect(errors.count == 1)
        #expect(errors.first?.contains("WHIP POST http://127.0.0.1:1/whip") == true)
        // The summary line on stdout carries the same report.
        #expect(result.stdout.contains("REPORT {"))
    }

    @Test func whipServerListensAndReportsNoSession() async throws {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent(
            "whip-server-idle-\(UUID().uuidString).json"
        ).path
        defer { try? FileManager.default.removeItem(atPath: report) }
        let result = try await Callbot.run(["whip-server", "--port", "0", "--duration", "1", "--report", report])
        #expect(result.status == 1)
        let ready = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("READY ") })
        let url = try #require(URL(string: String(ready.dropFirst("READY ".count))))
        #expect(url.host == "127.0.0.1")
        #expect((url.port ?? 0) > 0)
        #expect(url.path == "/whip")
        let json = try Self.reportObject(report)
        #expect(json["role"] as? String == "whip-server")
        #expect(json["sessions"] as? Int == 0)
        #expect(json["connected"] as? Bool == false)
        #expect((json["errors"] as? [String])?.first?.hasPrefix("no WHIP session was offered") == true)
    }

    @Test func whipServerOnATakenPortFails() async throws {
        // Two servers on one port: the second cannot listen and says so.
        let first = Process()
        first.executableURL = Callbot.executable
        let port = 20_000 + Int.random(in: 0..<20_000)
        first.arguments = ["whip-server", "--port", "\(port)", "--duration", "5"]
        let out = Pipe()
        first.standardOutput = out
        first.standardError = FileHandle.nullDevice
        try first.run()
        defer { if first.isRunning { first.terminate() } }
        // Wait for its READY line (bounded by its --duration), off the cooperative pool.
        let handle = out.fileHandleForReading
        let line = String(decoding: try await offThePool { handle.availableData }, as: UTF8.self)
        guard line.hasPrefix("READY ") else {
            Issue.record("first server printed \(line)")
            return
        }
        let second = try await Callbot.run(["whip-server", "--port", "\(port)", "--duration", "5"])
        #expect(second.status == 1)
        #expect(second.stderr.contains("WHIP endpoint"), "\(second.stderr)")
    }
}
