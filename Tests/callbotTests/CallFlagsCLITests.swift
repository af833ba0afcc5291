import Foundation
import TestScheduling
import Testing

/// The flags of `call`, `answer` and `demo` by what they change: media starts when the call
/// connects (a greeting is heard whole), `answer --no-audio` tells the caller, the live stats
/// count frames, `--video-size`/`--max-fps`/`--snapshots`, `--events-json`, `demo
/// --stats-json`, and the exit codes.
@Suite(.serialized, .realTime) struct CallFlagsCLITests {
    typealias Background = CallCLITests.Background
    static let alice = CallSessionCLITests.alice, bob = CallSessionCLITests.bob

    /// The caller's 3 s greeting is recorded whole by a callee that rang for 2 s (it played
    /// while ringing, and the sender dropped it, before); the callee's `--no-audio` reaches
    /// the caller; `--events-json` prints the call's events as JSON lines.
    @Test func aGreetingIsHeardWholeAndNoAudioIsTold() async throws {
        let (server, url) = try await CallCLITests.server()
        defer { Task { _ = try? await server.terminate() } }
        let folder = ServeCLITests.folder.appendingPathComponent("greeting-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let speech = folder.appendingPathComponent("speech.wav").path,
            greeting = folder.appendingPathComponent("greeting.wav").path
        #expect(
            try await ExampleBotsTests.tool(
                "/usr/bin/espeak-ng",
                ["-w", speech, "One, two, three, four, five, six, seven, eight."]
            ).status == 0
        )
        // Exactly 3 s at 48 kHz, speech to the end (no silence at either end to hide a loss).
        #expect(
            try await ExampleBotsTests.tool(
                "/usr/bin/ffmpeg",
                ["-v", "error", "-y", "-stream_loop", "-1", "-i", speech, "-t", "3", "-ar", "48000", greeting]
            ).status == 0
        )
        let sent = try await ExampleBotsTests.played(greeting).seconds
        let bob = try Background([
            "answer", "--server", url, "--token", Self.bob, "--delay", "2", "--no-audio", "--stats-interval", "30",
            "--record", folder.path, "--record-option", "remote_audio",
        ])
        #expect(await bob.wait(for: "READY bob"), "\(bob.errors)")
        let call = try await Callbot.run([
            "call", "bob", "--server", url, "--token", Self.alice, "--audio-only", "--audio", greeting,
            "--duration", "4", "--stats-interval", "30", "--events-json",
        ])
        #expect(call.status == 0, "\(call.stdout)\n\(call.stderr)")
        #expect(await bob.exit() == 0, "\(bob.output)")
        let recorded = try #require(
            bob.output.split(separator: "\n").first { $0.hasPrefix("answer: recorded ") }.map {
                String($0.dropFirst("answer: recorded ".count))
            },
            "\(bob.output)"
        )
        let heard = try await ExampleBotsTests.played(recorded).seconds
        print("greeting: sent \(sent) s, the callee recorded \(heard) s")
        #expect(heard > sent - 0.3, "sent \(sent) s, recorded \(heard) s")
        // Bob answered muted: alice is told, as by a mute during the call.
        #expect(call.stdout.contains("call: bob media audio off"), "\(call.stdout)")
        // The events as JSON lines, in order: bob accepted, connected, muted, alice ended the call.
        let events = call.stdout.split(separator: "\n").filter { $0.hasPrefix("EVENT ") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.dropFirst("EVENT ".count).utf8)) as? [String: Any]
        }
        let names = events.compactMap { $0["event"] as? String }
        for name in ["accepted", "connected", "remote_media", "ended"] {
            #expect(names.contains(name), "\(names)")
        }
        #expect(names.firstIndex(of: "accepted") ?? .max < names.firstIndex(of: "connected") ?? -1, "\(names)")
        #expect(names.last == "ended", "\(names)")
        let connected = try #require(events.first { $0["event"] as? String == "connected" })
        #expect(connected["user"] as? String == "bob" && (connected["session"] as? String)?.count == 36)
        let media = try #require(events.first { $0["event"] as? String == "remote_media" })
        #expect(media["audio"] as? Bool == false, "\(media)")
        let ended = try #require(events.last)
        #expect(ended["result"] as? String == "completed" && (ended["duration"] as? Double ?? 0) > 3)
    }

    /// A video call's live stats count the frames sent and decoded (the printer's and the
    /// metrics' reads a moment apart no longer leave the printed one a 0 fps interval);
    /// `--video-size` and `--max-fps` set what is sent; `--snapshots` writes the other's picture.
    @Test func videoStatsSendSettingsAndSnapshots() async throws {
        let (server, url) = try await CallCLITests.server()
        defer { Task { _ = try? await server.terminate() } }
        let folder = ServeCLITests.folder.appendingPathComponent("snapshots-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let bob = try Background(["answer", "--server", url, "--token", Self.bob, "--stats-interval", "30"])
        #expect(await bob.wait(for: "READY bob"), "\(bob.errors)")
        let call = try await Callbot.run([
            "call", "bob", "--server", url, "--token", Self.alice, "--duration", "4", "--stats-interval", "1",
            "--video-size", "320x240", "--max-fps", "10", "--snapshots", folder.path,
        ])
        #expect(call.status == 0, "\(call.stdout)\n\(call.stderr)")
        #expect(await bob.exit() == 0, "\(bob.output)")
        let lines = call.stdout.split(separator: "\n").map(String.init)
        // From the second print on, every interval holds a whole second of frames.
        let sent = lines.compactMap {
            $0.firstMatch(of: /^VS \(input\) \d+x\d+@(\d+)fps \| \(sent\) 320x240@(\d+)fps$/)
        }
        let received = lines.compactMap {
            $0.firstMatch(of: /^VR \(recv\) (\d+)x(\d+)@(\d+)fps \| \(decoded\)(\d+) \| \(output\)(\d+)fps/)
        }
        #expect(sent.count >= 3 && received.count >= 3, "\(call.stdout)")
        for match in sent.dropFirst() {
            #expect(Int(match.1) ?? 0 >= 20, "the 30 fps pattern: \(match.0)")
            #expect((5...11).contains(Int(match.2) ?? 0), "sent at most 10 fps: \(match.0)")
        }
        for match in received.dropFirst() {
            #expect(Int(match.4) ?? 0 >= 15 && Int(match.5) ?? 0 >= 15, "bob's 30 fps decoded: \(match.0)")
        }
        let snapshot = folder.appendingPathComponent("snapshot-bob.png")
        #expect(lines.contains("call: snapshot of bob in \(snapshot.path)"), "\(call.stdout)")
        let png = try Data(contentsOf: snapshot)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 1000, "\(png.count) bytes")
        // The PNG's IHDR: bob's 640x480 test pattern.
        let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 640 && height == 480, "\(width)x\(height)")
    }

    /// `demo --stats-json` prints the live stats as `STATS USER {...}` lines instead of statsString.
    @Test func demoPrintsStatsAsJSON() async throws {
        let demo = try await Callbot.run([
            "demo", "--duration", "2", "--stats-interval", "1", "--width", "160", "--height", "120", "--fps", "15",
            "--stats-json",
        ])
        #expect(demo.status == 0, "\(demo.stdout)\n\(demo.stderr)")
        let lines = demo.stdout.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("--- caller") || $0.hasPrefix("VR ") }, "\(demo.stdout)")
        for user in ["alice", "bob"] {
            let statsLines = lines.filter { $0.hasPrefix("STATS \(user) {") }
            #expect(statsLines.count == 2, "\(demo.stdout)")
            let json = try #require(
                statsLines.last.flatMap {
                    try? JSONSerialization.jsonObject(with: Data($0.dropFirst("STATS \(user) ".count).utf8))
                        as? [String: Any]
                }
            )
            let stats = try #require(json["stats"] as? [String: [String: Any]])
            let inbound = stats.values.first {
                $0["type"] as? String == "inbound-rtp" && $0["kind"] as? String == "video"
            }
            #expect((inbound?["framesDecoded"] as? Int ?? 0) > 10, "\(stats.keys.sorted())")
        }
    }

    /// Exit codes a script can tell apart: 64 for a wrong command line, 69 for no server
    /// reached, 77 for a refused token; and a flag that needs another is refused, not ignored.
    @Test(arguments: [
        (["--record-option", "remote_audio"], "--record-option remote_audio chooses what --record records"),
        (["--report", "/nonexistent-folder/report.json"], "--report /nonexistent-folder/report.json"),
        (["--max-fps", "0"], "--max-fps must be 1 to 60"),
        (["--video-size", "8x8"], "--video-size"),
        (["--snapshots", "/nonexistent-folder"], "--snapshots /nonexistent-folder: no such folder"),
        (
            [
                "--ice-server", "turn:127.0.0.1:3478", "--ice-server", "turn:127.0.0.1:3479", "--ice-username", "a",
                "--ice-username", "b", "--ice-username", "c", "--ice-credential", "x",
            ],
            "--ice-username was given 3 times for 2 TURN servers"
        ),
    ])
    func aFlagThatCannotTakeEffectIsAUsageError(extra: [String], message: String) async throws {
        for command in [["call", "bob"], ["answer"]] {
            let run = try await Callbot.run(
                command + ["--server", "ws://127.0.0.1:1/signaling", "--token", "t"] + extra
            )
            #expect(run.status == 64, "\(command) \(extra): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains(message), "\(run.stderr)")
        }
    }

    @Test func exitCodesTellUnreachableFromRefused() async throws {
        // One credential per TURN server passes validation; then no server is reachable: 69.
        let unreachable = try await Callbot.run([
            "call", "bob", "--server", "ws://127.0.0.1:1/signaling", "--token", "t",
            "--ice-server", "turn:127.0.0.1:3478", "--ice-server", "turn:127.0.0.1:3479",
            "--ice-username", "a", "--ice-username", "b", "--ice-credential", "x", "--ice-credential", "y",
        ])
        #expect(unreachable.status == 69, "\(unreachable.stderr)")
        #expect(unreachable.stderr.contains("Error: signaling ws://127.0.0.1:1/signaling"), "\(unreachable.stderr)")
        let (server, url) = try await CallCLITests.server()
        defer { Task { _ = try? await server.terminate() } }
        let refused = try await Callbot.run(["answer", "--server", url, "--token", "not-a-token-of-anyone-here"])
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(refused.stderr.contains("signaling login refused"), "\(refused.stderr)")
        // A WHIP endpoint's 401 is a refusal too.
        let endpoint = try Background([
            "whip-server", "--port", "0", "--token", "whip-token-0123456789", "--duration", "30", "--stats-interval",
            "30",
        ])
        #expect(await endpoint.wait(for: "READY "), "\(endpoint.errors)")
        let ready = try #require(endpoint.output.split(separator: "\n").first { $0.hasPrefix("READY ") })
        let whip = try await Callbot.run([
            "whip", String(ready.dropFirst("READY ".count)), "--token", "not-the-token-0123456789", "--duration", "1",
        ])
        #expect(whip.status == 77, "\(whip.stderr)")
        #expect(whip.stderr.contains("HTTP 401"), "\(whip.stderr)")
        kill(endpoint.process.processIdentifier, SIGTERM)
        _ = await endpoint.exit()
    }
}
