import Foundation
import TestScheduling
import Testing

/// The example bots of `Examples/`, each run as a process against a real counterpart
/// (`callbot serve` with `callbot call` or `callbot answer`, `callbot whip-server`), and what
/// each produced checked: files played back to their end by ffmpeg, what the other side
/// received.
@Suite(.serialized, .realTime) struct ExampleBotsTests {
    typealias Background = CallCLITests.Background
    static let alice = "alice-token-0123456789", bob = "bob-token-0123456789"

    static func folder(_ name: String) throws -> URL {
        let url = ServeCLITests.folder.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs a tool to its end: status and standard output.
    static func tool(_ path: String, _ arguments: [String]) async throws -> (status: Int32, stdout: String) {
        let output = try await runToEnd(URL(fileURLWithPath: path), arguments)
        return (output.status, output.stdout)
    }

    /// ffmpeg decodes `path` to its end without an error; ffprobe's codecs and duration.
    static func played(_ path: String) async throws -> (codecs: [String], seconds: Double) {
        #expect(
            try await tool("/usr/bin/ffmpeg", ["-v", "error", "-xerror", "-i", path, "-f", "null", "-"]).status == 0,
            "\(path) does not decode to its end"
        )
        let codecs = try await tool(
            "/usr/bin/ffprobe",
            ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", path]
        ).stdout
        let duration = try await tool(
            "/usr/bin/ffprobe",
            ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path]
        ).stdout
        return (
            codecs.split(separator: "\n").map(String.init).sorted(),
            Double(duration.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        )
    }

    /// Speech from espeak-ng, as a user of the announcer makes it.
    static func speech(in folder: URL, _ text: String) async throws -> URL {
        let wav = folder.appendingPathComponent("speech.wav")
        #expect(try await tool("/usr/bin/espeak-ng", ["-w", wav.path, text]).status == 0)
        return wav
    }

    @Test func recorderBotRecordsTheCaller() async throws {
        let (server, url) = try await CallCLITests.server()
        defer { Task { _ = try? await server.terminate() } }
        let folder = try Self.folder("recorder-bot")
        let bot = try Background([url, Self.bob], executable: Callbot.product("recorder-bot"), folder: folder)
        #expect(await bot.wait(for: "READY"), "\(bot.errors)")
        let call = try await Callbot.run([
            "call", "bob", "--server", url, "--token", Self.alice, "--duration", "3", "--stats-interval", "1",
        ])
        #expect(call.status == 0, "\(call.stdout)\n\(call.stderr)")
        #expect(await bot.wait(for: "recorded "), "\(bot.output)\n\(bot.errors)")
        let file = folder.appendingPathComponent("alice.webm").path
        let recording = try await Self.played(file)
        print("recorder-bot: \(file) \(recording)")
        #expect(recording.codecs == ["opus", "vp8"] && recording.seconds > 2 && recording.seconds < 4)
    }

    @Test func announcerBotPlaysItsFileToTheEnd() async throws {
        let (server, url) = try await CallCLITests.server()
        defer { Task { _ = try? await server.terminate() } }
        let folder = try Self.folder("announcer-bot")
        let speech = try await Self.speech(
            in: folder,
            "Hello from SwiftRTC. This is an announcement for the test of the announcer bot."
        )
        let spoken = try await Self.played(speech.path).seconds
        let bob = try Background([
            "answer", "--server", url, "--token", Self.bob, "--record", folder.path, "--record-option", "remote_audio",
            "--no-audio", "--stats-interval", "5",
        ])
        #expect(await bob.wait(for: "READY bob"), "\(bob.errors)")
        let announcer = try await runToEnd(Callbot.product("announcer-bot"), [url, Self.alice, "bob", speech.path])
        #expect(announcer.status == 0, "\(announcer.stdout)\n\(announcer.stderr)")
        #expect(announcer.stdout.contains("played \(speech.path)") && announcer.stdout.contains("ended completed"))
        #expect(await bob.exit() == 0, "\(bob.output)")
        let recorded = try #require(
            bob.output.split(separator: "\n").first { $0.hasPrefix("answer: recorded ") }.map {
                String($0.dropFirst("answer: recorded ".count))
            }
        )
        let heard = try await Self.played(recorded)
        print("announcer-bot: spoke \(spoken) s, bob recorded \(heard)")
        #expect(heard.codecs == ["opus"] && heard.seconds > spoken - 0.5 && heard.seconds < spoken + 2)
    }

    @Test func transcriberTapWritesSpeechSegmentsAt16kHz() async throws {
        let (server, url) = try await CallCLITests.server()
        defer { Task { _ = try? await server.terminate() } }
        let folder = try Self.folder("transcriber-tap")
        let speech = try await Self.speech(
            in: folder,
            "One sentence for the transcriber. And after a pause, another one."
        )
        let spoken = try await Self.played(speech.path).seconds
        let tap = try Background([url, Self.bob], executable: Callbot.product("transcriber-tap"), folder: folder)
        #expect(await tap.wait(for: "READY"), "\(tap.errors)")
        let call = try await Callbot.run([
            "call", "bob", "--server", url, "--token", Self.alice, "--audio-only", "--audio", speech.path,
            "--duration", "\(Int(spoken) + 3)", "--stats-interval", "5",
        ])
        #expect(call.status == 0, "\(call.stdout)\n\(call.stderr)")
        #expect(await tap.wait(for: "segment alice-1.wav"), "\(tap.output)\n\(tap.errors)")
        var total = 0.0
        for line in tap.output.split(separator: "\n") where line.hasPrefix("segment ") {
            let file = folder.appendingPathComponent(String(line.dropFirst("segment ".count))).path
            let format = try await Self.tool(
                "/usr/bin/ffprobe",
                ["-v", "error", "-show_entries", "stream=sample_rate,channels", "-of", "csv=p=0", file]
            )
            #expect(format.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "16000,1", "\(file)")
            total += try await Self.played(file).seconds
        }
        print("transcriber-tap: \(spoken) s spoken, \(total) s in segments: \(tap.output)")
        #expect(total > spoken * 0.6 && total < spoken + 1.5)
    }

    @Test func whipPublisherPublishesAWebM() async throws {
        let folder = try Self.folder("whip-publisher")
        let clip = folder.appendingPathComponent("clip.webm").path
        #expect(
            try await Self.tool(
                "/usr/bin/ffmpeg",
                [
                    "-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=15:duration=3",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3",
                    "-c:v", "libvpx", "-b:v", "300k", "-g", "15", "-c:a", "libopus", clip,
                ]
            ).status == 0
        )
        let recordings = folder.appendingPathComponent("received")
        try FileManager.default.createDirectory(at: recordings, withIntermediateDirectories: true)
        let server = try Background([
            "whip-server", "--port", "0", "--duration", "60", "--stats-interval", "30", "--record", recordings.path,
        ])
        #expect(await server.wait(for: "READY "), "\(server.errors)")
        let endpoint = try #require(
            server.output.split(separator: "\n").first { $0.hasPrefix("READY ") }.map {
                String($0.dropFirst("READY ".count))
            }
        )
        let publisher = try await runToEnd(Callbot.product("whip-publisher"), [endpoint, clip])
        #expect(
            publisher.status == 0 && publisher.stdout.contains("published ")
                && publisher.stdout.split(separator: "\n").contains("done"),
            "\(publisher.stdout)\n\(publisher.stderr)"
        )
        // whip-server logs on standard error: `callbot: recorded <file>` once the session ended.
        let deadline = ContinuousClock.now + .seconds(20)
        while !server.errors.contains("recorded \(recordings.path)/whip-"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        let line = try #require(
            server.errors.split(separator: "\n").first { $0.contains("recorded \(recordings.path)/whip-") },
            "\(server.errors)"
        )
        let recording = String(line[line.range(of: recordings.path)!.lowerBound...])
        let received = try await Self.played(recording)
        print("whip-publisher: whip-server recorded \(received)")
        #expect(received.codecs == ["opus", "vp8"] && received.seconds > 2.3 && received.seconds < 4)
    }

    @Test func callResponderEchoesAndReports() async throws {
        let (server, url) = try await CallCLITests.server()
        defer { Task { _ = try? await server.terminate() } }
        let responder = try Background(
            [url, Self.bob],
            executable: Callbot.product("call-responder"),
            folder: try Self.folder("call-responder")
        )
        #expect(await responder.wait(for: "READY"), "\(responder.errors)")
        let call = try await Callbot.run([
            "call", "bob", "--server", url, "--token", Self.alice, "--duration", "4", "--stats-interval", "1",
        ])
        #expect(call.status == 0, "\(call.stdout)\n\(call.stderr)")
        // What alice got back: her own tone and pattern, decoded.
        let received = call.stdout.split(separator: "\n").filter { $0.hasPrefix("VR ") || $0.hasPrefix("AR ") }
        #expect(received.contains { $0.hasPrefix("VR ") && !$0.contains("(decoded)0 ") }, "\(call.stdout)")
        #expect(received.contains { $0.hasPrefix("AR ") && $0.contains("opus") }, "\(call.stdout)")
        #expect(await responder.wait(for: "REPORT "), "\(responder.output)\n\(responder.errors)")
        let line = try #require(responder.output.split(separator: "\n").first { $0.hasPrefix("REPORT ") })
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(line.dropFirst("REPORT ".count).utf8)) as? [String: Any]
        )
        let record = try #require(report["record"] as? [String: Any])
        #expect(record["caller"] as? String == "alice")
        let stats = try #require((report["stats"] as? [String: Any])?["alice"] as? [String: Any])
        let objects = try #require(stats["stats"] as? [String: [String: Any]])
        let echoed = objects.values.filter { $0["type"] as? String == "outbound-rtp" }.compactMap {
            $0["packetsSent"] as? Int
        }
        #expect(
            echoed.count == 2 && echoed.allSatisfy { $0 > 20 },
            "the responder sent audio and video back: \(echoed)"
        )
    }
    @Test func chatBotAnswersEachParticipantOnTheChatChannel() async throws {
        let (server, url) = try await CallCLITests.server()
        defer { Task { _ = try? await server.terminate() } }
        let bot = try Background(
            [url, Self.bob],
            executable: Callbot.product("chat-bot"),
            folder: try Self.folder("chat-bot")
        )
        #expect(await bot.wait(for: "READY"), "\(bot.errors)")
        let input = Pipe()
        defer { try? input.fileHandleForWriting.close() }
        let alice = try Background(
            [
                "call", "bob", "--server", url, "--token", Self.alice, "--chat", "--audio-only", "--duration", "6",
                "--stats-interval", "10",
            ],
            stdin: input
        )
        // Typed before the call connected: sent once it has, in order.
        input.fileHandleForWriting.write(Data("hello there\nwho\nstats\n".utf8))
        #expect(await alice.wait(for: "call: chat bob: hello alice, I am a bot: try who or stats\n"), "\(alice.output)")
        #expect(await alice.wait(for: "call: chat bob: you said: hello there\n"), "\(alice.output)\n\(bot.output)")
        #expect(await alice.wait(for: "call: chat bob: connected: alice\n"), "\(alice.output)")
        // Its statsString of the connection with alice: the audio both ways and the open chat channel.
        #expect(await alice.wait(for: "DC 1 open | (s)"), "\(alice.output)")
        #expect(await alice.exit() == 0, "\(alice.output)\n\(alice.errors)")
        #expect(bot.output.contains("alice: hello there\nalice: who\nalice: stats\n"), "\(bot.output)")
    }
}
