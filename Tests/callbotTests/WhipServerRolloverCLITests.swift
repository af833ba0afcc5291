import Foundation
import TestScheduling
import Testing

/// `callbot whip-server --record DIR --record-rollover-seconds S`, tried as a user would: a
/// `callbot whip` call of 7 seconds (tone and test pattern) is recorded in parts of about
/// 2 seconds; each part begins with a video keyframe and plays to its end on its own, and
/// together they hold the call.
@Suite(.serialized, .realTime) struct WhipServerRolloverCLITests {
    typealias Background = CallCLITests.Background

    /// A `whip-server` recording into a new folder named `name`, with `options`: the server,
    /// its endpoint URL and the recordings folder.
    static func recordingServer(
        _ name: String,
        _ options: [String]
    ) async throws -> (server: Background, endpoint: String, recordings: URL) {
        let recordings = try ScratchFolder.make(name).appendingPathComponent("recordings")
        try FileManager.default.createDirectory(at: recordings, withIntermediateDirectories: true)
        let server = try Background(
            ["whip-server", "--port", "0", "--duration", "60", "--stats-interval", "30", "--record", recordings.path]
                + options
        )
        #expect(await server.wait(for: "READY "), "\(server.errors)")
        let endpoint = try #require(
            server.output.split(separator: "\n").first { $0.hasPrefix("READY ") }.map {
                String($0.dropFirst("READY ".count))
            }
        )
        return (server, endpoint, recordings)
    }

    @Test func aLongRecordingGoesOnInPartsThatEachPlay() async throws {
        let (server, endpoint, recordings) = try await Self.recordingServer(
            "whip-server-rollover",
            ["--record-rollover-seconds", "2"]
        )
        let client = try await Callbot.run(["whip", endpoint, "--duration", "7", "--stats-interval", "30"])
        #expect(client.status == 0, "\(client.stderr)")

        // whip-server logs `callbot: recorded <file>` for each file once the session ended.
        let deadline = ContinuousClock.now + .seconds(20)
        while !server.errors.contains("recorded \(recordings.path)/whip-"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .milliseconds(500))
        let files = server.errors.split(separator: "\n").filter { $0.contains("recorded \(recordings.path)/whip-") }
            .map { String($0[$0.range(of: recordings.path)!.lowerBound...]) }
        print("whip-server --record-rollover-seconds 2: \(files.map { URL(fileURLWithPath: $0).lastPathComponent })")
        #expect(files.count >= 3 && files.count <= 5, "\(server.errors)")
        let first = try #require(files.first)
        let base = URL(fileURLWithPath: first).deletingPathExtension().lastPathComponent
        #expect(files.dropFirst().enumerated().allSatisfy { $1.hasSuffix("/\(base)-part\($0 + 2).webm") }, "\(files)")
        var seconds = 0.0
        for file in files {
            let played = try await ExampleBotsTests.played(file)
            #expect(played.codecs == ["opus", "vp8"], "\(file)")
            seconds += played.seconds
            #expect(try await beginsWithKeyframe(file), "\(file) begins with a keyframe")
        }
        // The client's 7 s, less the time to the first keyframe.
        #expect(seconds > 5.5 && seconds < 8, "\(seconds) s in \(files.count) parts")
        kill(server.process.processIdentifier, SIGTERM)
        #expect(await server.exit() == 0, "\(server.errors)")
    }
}

/// `callbot whip-server --max-session-seconds S --record-max-megabytes MB`, tried as a user
/// would: a `callbot whip` call meant to last 8 seconds is ended by the server after 4, and
/// its recording stops at 30 kB, playable to where it stopped.
@Suite(.serialized, .realTime) struct WhipServerSessionLimitsCLITests {
    @Test func aSessionEndsAtItsLifetimeAndItsRecordingAtItsSize() async throws {
        let (server, endpoint, recordings) = try await WhipServerRolloverCLITests.recordingServer(
            "whip-server-session-limits",
            ["--record-max-megabytes", "0.03", "--max-session-seconds", "4"]
        )
        let started = ContinuousClock.now
        let client = try await Callbot.run(["whip", endpoint, "--duration", "8", "--stats-interval", "30"])
        print("whip client after the server ended its session: exit \(client.status), \(started.duration(to: .now))")
        #expect(await server.wait(for: "WHIP session ended: it lasted 4", inErrors: true), "\(server.errors)")
        #expect(
            await server.wait(for: "its recording stopped at --record-max-megabytes", inErrors: true),
            "\(server.errors)"
        )
        #expect(await server.wait(for: "recorded \(recordings.path)/whip-", inErrors: true), "\(server.errors)")
        let files = try FileManager.default.contentsOfDirectory(atPath: recordings.path).map {
            recordings.appendingPathComponent($0).path
        }
        let bytes = try files.map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int ?? 0 }
        print("whip-server --record-max-megabytes 0.03: \(files.count) file(s), \(bytes) bytes")
        // 30 kB of media, plus the container and at most one frame past the limit.
        #expect(files.count == 1 && bytes.reduce(0, +) < 30_000 + 20_000, "\(bytes)")
        let played = try await ExampleBotsTests.played(try #require(files.first))
        #expect(played.seconds > 0.2 && played.seconds < 3.9, "\(played)")
        kill(server.process.processIdentifier, SIGTERM)
        #expect(await server.exit() == 0, "\(server.errors)")
    }
}
