import Foundation
import TestScheduling
import Testing

/// `callbot whip --data-channel` against `callbot whip-server --echo-data`, as a user runs
/// them: a data-only connection with 256 KiB binary messages, and an unordered, partially
/// reliable text channel beside audio and video; every message comes back, and both reports
/// have the channel's row.
@Suite(.serialized, .realTime) struct WhipDataChannelCLITests {
    typealias Background = CallCLITests.Background

    static func rows(_ path: String) throws -> [[String: Any]] {
        let json = try WhipRunTests.reportObject(path)
        return try #require(json["data_channels"] as? [[String: Any]], "\(json)")
    }

    @Test func everyMessageComesBackOnADataOnlyAndAMediaConnection() async throws {
        let folder = try ScratchFolder.make("whip-data-channel")
        let serverReport = folder.appendingPathComponent("server.json").path
        let server = try Background([
            "whip-server", "--port", "0", "--duration", "60", "--echo-data", "--report", serverReport,
        ])
        let endpoint = try await TLSCLITests.readyURL(server).absoluteString

        // Data only: 8 binary messages of 256 KiB.
        let dataOnly = folder.appendingPathComponent("data-only.json").path
        let first = try await Callbot.run([
            "whip", endpoint, "--no-audio", "--no-video", "--data-channel", "bulk", "--data-messages", "8",
            "--data-size", "262144", "--data-binary", "--report", dataOnly,
        ])
        #expect(first.status == 0, "\(first.stderr)")
        let bulk = try #require(try Self.rows(dataOnly).first)
        #expect(bulk["label"] as? String == "bulk")
        #expect(bulk["messages_sent"] as? Int == 8 && bulk["messages_received"] as? Int == 8)
        #expect(bulk["bytes_sent"] as? Int == 8 * 262_144 && bulk["bytes_received"] as? Int == 8 * 262_144)
        #expect(bulk["echo_mismatches"] as? Int == 0)
        #expect((bulk["open_ms"] as? Int).map { $0 > 0 } == true)
        #expect((bulk["echo_ms"] as? Double).map { $0 > 0 } == true)
        let offer = try WhipRunTests.reportObject(dataOnly)
        #expect((offer["audio"] as? [String: Any])?["rtp_packets_sent"] is NSNull, "no audio section")

        // Beside audio and video for 2 s: 100 text messages of 1000 bytes, unordered, no
        // retransmission (loopback loses nothing).
        let withMedia = folder.appendingPathComponent("with-media.json").path
        let second = try await Callbot.run([
            "whip", endpoint, "--duration", "2", "--data-channel", "events", "--data-messages", "100",
            "--data-size", "1000", "--data-unordered", "--data-max-retransmits", "0", "--report", withMedia,
        ])
        #expect(second.status == 0, "\(second.stderr)")
        let events = try #require(try Self.rows(withMedia).first)
        #expect(events["messages_received"] as? Int == 100 && events["echo_mismatches"] as? Int == 0)
        let media = try WhipRunTests.reportObject(withMedia)
        #expect(((media["audio"] as? [String: Any])?["frames_decoded"] as? Int ?? 0) > 0, "media flows beside")

        kill(server.process.processIdentifier, SIGINT)
        #expect(await server.exit() != nil, "\(server.errors)")
        // The server's report is its last session's: the channel it echoed.
        let echoed = try #require(try Self.rows(serverReport).first)
        #expect(echoed["label"] as? String == "events")
        #expect(echoed["messages_received"] as? Int == 100 && echoed["messages_sent"] as? Int == 100)
    }

    @Test func dataFlagsNeedADataChannelAndSaneValues() async throws {
        for (arguments, message) in [
            (["--data-messages", "3"], "need --data-channel LABEL"),
            (["--data-channel", "x", "--data-size", "262145"], "--data-size takes 1 to 262144 bytes"),
            (["--data-channel", "x", "--data-messages", "0"], "--data-messages takes 1 to 1000000"),
        ] {
            let result = try await Callbot.run(["whip", "http://127.0.0.1:1/whip"] + arguments)
            #expect(result.status != 0)
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}
