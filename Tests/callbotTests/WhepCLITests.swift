import Foundation
import TestScheduling
import Testing

/// `callbot whep URL --record DIR` watching `callbot whip-server`'s WHEP endpoint, tried as a
/// user would: one bot publishes with `callbot whip` (tone and test pattern), two others
/// watch at once; each decodes the publisher's tone and picture and records them into a file
/// that plays to its end. A viewer with nobody on air, or without the token, fails and says why.
@Suite(.serialized, .realTime) struct WhepCLITests {
    typealias Background = CallCLITests.Background

    /// The `WHEP <URL>` line a `whip-server` prints before READY.
    static func whepURL(of server: Background) throws -> String {
        try #require(
            server.output.split(separator: "\n").first { $0.hasPrefix("WHEP ") }.map { String($0.dropFirst(5)) }
        )
    }

    @Test func viewersWatchAndRecordThePublisher() async throws {
        let (server, endpoint, _) = try await WhipServerRolloverCLITests.recordingServer("whep-viewers", [])
        let whep = try Self.whepURL(of: server)
        #expect(whep == endpoint.replacingOccurrences(of: "/whip", with: "/whep"))
        let folder = try ScratchFolder.make("whep-viewers-recordings")
        let publisher = try Background(["whip", endpoint, "--duration", "12", "--stats-interval", "30"])
        #expect(await server.wait(for: "session 1: answered", inErrors: true), "\(server.errors)")
        async let first = Self.watch(whep, recordingInto: folder.appendingPathComponent("first"))
        async let second = Self.watch(whep, recordingInto: folder.appendingPathComponent("second"))
        for viewer in try await [first, second] {
            #expect(viewer.status == 0, "\(viewer.stderr)")
            let report = viewer.report
            #expect(report["role"] as? String == "whep-client")
            let audio = try #require(report["audio"] as? [String: Any])
            let video = try #require(report["video"] as? [String: Any])
            // The publisher's tone (RMS 0.177) and test pattern, 5 s of each at least.
            #expect((audio["frames_decoded"] as? Int ?? 0) > 200, "\(audio)")
            #expect(abs((audio["rms"] as? Double ?? 0) - 0.177) < 0.03, "\(audio)")
            #expect((video["frames_decoded"] as? Int ?? 0) > 100, "\(video)")
            #expect(video["width"] as? Int == 640 && video["height"] as? Int == 480, "\(video)")
            let file = try #require(viewer.recorded, "\(viewer.stderr)")
            #expect(URL(fileURLWithPath: file).lastPathComponent.hasPrefix("whep-"))
            let played = try await ExampleBotsTests.played(file)
            print(
                "whep viewer: \(audio["frames_decoded"] ?? 0) audio, \(video["frames_decoded"] ?? 0) video frames; \(played)"
            )
            #expect(played.codecs == ["opus", "vp8"], "\(file)")
            #expect(played.seconds > 4 && played.seconds < 8, "\(played)")
        }
        #expect(await publisher.exit() == 0, "\(publisher.errors)")
        kill(server.process.processIdentifier, SIGTERM)
        #expect(await server.exit() == 0, "\(server.errors)")
        let endpointCounters = try #require(
            try Self.report(in: server.output)["whip_endpoint"] as? [String: Any],
            "\(server.output)"
        )
        #expect(endpointCounters["sessions_created"] as? Int == 3, "\(endpointCounters)")
        #expect(endpointCounters["viewer_sessions_created"] as? Int == 2, "\(endpointCounters)")
        #expect(endpointCounters["ended_by_client"] as? Int == 3, "\(endpointCounters)")
    }

    @Test func aViewerWithNothingOnAirOrWithoutTheTokenFails() async throws {
        let server = try Background(
            ["whip-server", "--port", "0", "--duration", "30", "--stats-interval", "30", "--token", "s3cret-token"]
        )
        #expect(await server.wait(for: "READY "), "\(server.errors)")
        let whep = try Self.whepURL(of: server)
        let empty = try await Callbot.run(["whep", whep, "--duration", "3", "--token", "s3cret-token"])
        #expect(empty.status == 1, "\(empty.stderr)")
        let errors = try #require(try Self.report(in: empty.stdout)["errors"] as? [String])
        #expect(errors == ["connected, but no audio or video frame arrived"], "\(errors)")
        let stranger = try await Callbot.run(["whep", whep, "--duration", "3"])
        #expect(stranger.status == 77, "\(stranger.stderr)")
        kill(server.process.processIdentifier, SIGTERM)
        _ = await server.exit()
    }

    /// A `callbot whep` run of 6 s recording into `folder`: its exit, report and recording.
    static func watch(
        _ whep: String,
        recordingInto folder: URL
    ) async throws -> (status: Int32, stderr: String, report: [String: Any], recorded: String?) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let run = try await Callbot.run(
            ["whep", whep, "--duration", "6", "--stats-interval", "30", "--record", folder.path]
        )
        let recorded = run.stderr.split(separator: "\n").first { $0.hasPrefix("callbot: recorded ") }
            .map { String($0.dropFirst("callbot: recorded ".count)) }
        return (run.status, run.stderr, try report(in: run.stdout), recorded)
    }

    /// The `REPORT {...}` line of a run's standard output.
    static func report(in output: String) throws -> [String: Any] {
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("REPORT ") }, "\(output)")
        let json = try JSONSerialization.jsonObject(with: Data(line.dropFirst("REPORT ".count).utf8))
        return try #require(json as? [String: Any])
    }
}
