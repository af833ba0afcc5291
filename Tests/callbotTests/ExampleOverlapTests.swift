import Foundation
import TestScheduling
import Testing

/// The example bots that answer calls, each against two overlapping callers and a later one:
/// the second caller is answered too (bots that take every call, each in a task of its own)
/// or told busy at once (the voice agent, one call at a time), never left ringing; the bot
/// keeps running and answers the later call. And every example prints its usage and exits 64
/// on missing or bad arguments.
@Suite(.serialized, .realTime) struct ExampleOverlapTests {
    typealias Background = CallCLITests.Background
    static let alice = "alice-token-0123456789", bob = "bob-token-0123456789", carol = "carol-token-0123456789"

    /// A signaling server with alice, bob and carol.
    static func server() async throws -> (ServeCLITests.Server, String) {
        let tokens = try ServeCLITests.write(
            "overlap-tokens-\(UUID().uuidString.prefix(8)).txt",
            "alice:\(alice)\nbob:\(bob)\ncarol:\(carol)\n"
        )
        let server = try ServeCLITests.Server(["--port", "0", "--tokens", tokens])
        return (server, try await server.ready().absoluteString)
    }

    /// What happened to the second caller: answered, or busy after how long.
    enum Second: Equatable {
        case answered
        case busy(Duration)
    }

    /// Runs `bot` (as bob) in a new folder; alice calls it for 8 s, carol calls while alice's
    /// call is up, then alice calls once more (those two for `seconds`). Returns the bot (still running), its folder and
    /// what became of carol's call.
    static func overlap(
        _ name: String,
        _ extra: [String] = [],
        media: [String] = [],
        seconds: Int = 2,
        files: (URL) async throws -> [String] = { _ in [] }
    ) async throws -> (bot: Background, folder: URL, second: Second, server: ServeCLITests.Server) {
        let (server, url) = try await Self.server()
        let folder = try ExampleBotsTests.folder("\(name)-overlap")
        let bot = try Background(
            [url, Self.bob] + (try await files(folder)) + extra,
            executable: Callbot.product(name),
            folder: folder
        )
        #expect(await bot.wait(for: "READY"), "\(bot.errors)")
        let call = ["call", "bob", "--server", url, "--stats-interval", "5"] + media
        let first = try Background(call + ["--token", Self.alice, "--duration", "8"])
        #expect(await first.wait(for: "call: connected with bob"), "\(first.output)")
        let start = ContinuousClock.now
        let second = try await Callbot.run(call + ["--token", Self.carol, "--duration", "\(seconds)"])
        let took = ContinuousClock.now - start
        let outcome: Second
        if second.status == 0 {
            #expect(second.stdout.contains("call: connected with bob"), "\(second.stdout)")
            outcome = .answered
        } else {
            #expect(second.stdout.contains("bob rejected (busy)"), "\(second.stdout)\n\(second.stderr)")
            outcome = .busy(took)
        }
        print("\(name): the second caller was \(outcome) (the call took \(took))")
        #expect(await first.exit() == 0, "the first call completed: \(first.output)")
        let later = try await Callbot.run(call + ["--token", Self.alice, "--duration", "\(seconds)"])
        #expect(later.status == 0, "a later call is answered: \(later.stdout)\n\(later.stderr)")
        #expect(bot.process.isRunning, "\(bot.output)\n\(bot.errors)")
        return (bot, folder, outcome, server)
    }

    @Test func recorderBotAnswersBothCallersAndALaterOne() async throws {
        let (bot, folder, second, server) = try await Self.overlap("recorder-bot")
        defer { Task { _ = try? await server.terminate() } }
        #expect(second == .answered)
        // alice's two calls and carol's, each in its own file.
        let deadline = ContinuousClock.now + .seconds(20)
        while bot.output.components(separatedBy: "recorded ").count < 4, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        for file in ["alice.webm", "carol.webm", "alice-2.webm"] {
            let recording = try await ExampleBotsTests.played(folder.appendingPathComponent(file).path)
            print("recorder-bot: \(file) \(recording)")
            #expect(recording.codecs == ["opus", "vp8"] && recording.seconds > 1.3, "\(file): \(recording)")
        }
    }

    @Test func callResponderAnswersBothCallersAndALaterOne() async throws {
        let (bot, _, second, server) = try await Self.overlap("call-responder")
        defer { Task { _ = try? await server.terminate() } }
        #expect(second == .answered)
        let deadline = ContinuousClock.now + .seconds(20)
        while bot.output.components(separatedBy: "REPORT ").count < 4, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        let callers = bot.output.split(separator: "\n").filter { $0.hasPrefix("REPORT ") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.dropFirst("REPORT ".count).utf8)) as? [String: Any]
        }.compactMap { ($0["record"] as? [String: Any])?["caller"] as? String }
        #expect(callers.sorted() == ["alice", "alice", "carol"], "\(bot.output)")
    }

    @Test func transcriberTapAnswersBothCallersAndALaterOne() async throws {
        let speech = try await ExampleBotsTests.speech(
            in: try ExampleBotsTests.folder("transcriber-speech"),
            "Two callers at once."
        )
        let (bot, _, second, server) = try await Self.overlap(
            "transcriber-tap",
            media: ["--audio-only", "--audio", speech.path],
            seconds: 4
        )
        defer { Task { _ = try? await server.terminate() } }
        #expect(second == .answered)
        let deadline = ContinuousClock.now + .seconds(10)
        while !(bot.output.contains("segment carol-1.wav") && bot.output.contains("segment alice-2.wav")),
            ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(100))
        }
        // Each caller's speech, the later call's numbered on (its words are spoken once a call).
        for segment in ["alice-1.wav", "carol-1.wav", "alice-2.wav"] {
            #expect(bot.output.contains("segment \(segment)"), "\(bot.output)")
        }
    }

    @Test func voiceAgentTellsTheSecondCallerBusyAtOnce() async throws {
        let (_, _, second, server) = try await Self.overlap(
            "voice-agent",
            media: ["--audio-only"],
            files: { folder in
                [try await ExampleBotsTests.speech(in: folder, "Hello, this is the voice agent.").path]
            }
        )
        defer { Task { _ = try? await server.terminate() } }
        guard case .busy(let took) = second else {
            Issue.record("the voice agent takes one call at a time: \(second)")
            return
        }
        // At once: not after the 45 s answer timeout, not after the first call's 8 s.
        #expect(took < .seconds(5), "\(took)")
    }

    /// The voice agent greets the caller with 6 s of speech; the caller (a WAV: 1.5 s of
    /// silence, a sentence, 2.5 s of silence, another sentence) talks over it. The agent stops
    /// speaking (barge-in: its queued speech dropped, nothing left queued), hears all the
    /// caller's audio (nothing dropped, as long as the call) and answers each sentence.
    @Test func voiceAgentStopsSpeakingWhenTheCallerTalksAndHearsAllOfIt() async throws {
        let (server, url) = try await Self.server()
        defer { Task { _ = try? await server.terminate() } }
        let folder = try ExampleBotsTests.folder("voice-agent")
        let reply = try await ExampleBotsTests.speech(
            in: folder,
            "Hello, this is the voice agent. I can tell you about the weather, the news and your day. What would you like?"
        )
        // espeak-ng leaves out a leading break: ffmpeg puts the 1.5 s of silence first.
        let words = folder.appendingPathComponent("words.wav"), caller = folder.appendingPathComponent("caller.wav")
        let ssml = """
            <speak>Hello agent, I would like to know the weather for today.\
            <break time="2500ms"/>And what about tomorrow, will it rain or will the sun shine?\
            <break time="1500ms"/></speak>
            """
        #expect(try await ExampleBotsTests.tool("/usr/bin/espeak-ng", ["-m", "-w", words.path, ssml]).status == 0)
        let delay = ["-v", "error", "-i", words.path, "-af", "adelay=1500:all=1", "-c:a", "pcm_s16le", caller.path]
        #expect(try await ExampleBotsTests.tool("/usr/bin/ffmpeg", delay).status == 0)
        let (greeting, spoken) = (
            try await ExampleBotsTests.played(reply.path).seconds,
            try await ExampleBotsTests.played(caller.path).seconds
        )
        let agent = try Background(
            [url, Self.bob, reply.path],
            executable: Callbot.product("voice-agent"),
            folder: folder
        )
        #expect(await agent.wait(for: "READY"), "\(agent.errors)")
        let call = try await Callbot.run([
            "call", "bob", "--server", url, "--token", Self.alice, "--audio-only", "--audio", caller.path,
            "--duration", "\(Int(spoken) + 3)", "--stats-interval", "5",
        ])
        #expect(call.status == 0, "\(call.stdout)\n\(call.stderr)")
        #expect(
            await agent.wait(for: "call with alice: heard", timeout: .seconds(20)),
            "\(agent.output)\n\(agent.errors)"
        )
        let lines = agent.output.split(separator: "\n").map(String.init)
        print("voice-agent: greeting \(greeting) s, caller \(spoken) s:\n\(lines.joined(separator: "\n"))")
        func number(after prefix: String, in line: String) -> Double? {
            line.range(of: prefix).flatMap { Double(line[$0.upperBound...].prefix { $0.isNumber || $0 == "." }) }
        }
        // Barge-in: the greeting, begun as the call connected, stopped when the caller spoke
        // 1.5 s in (most of it still queued, dropped; nothing stayed queued); the answer to
        // the first sentence, when the second began.
        let bargeIns = lines.filter { $0.hasPrefix("barge-in at ") }
        let times = bargeIns.compactMap { number(after: "barge-in at ", in: $0) }
        let dropped = bargeIns.compactMap { number(after: "dropped ", in: $0) }
        #expect(bargeIns.count >= 2 && times.count == bargeIns.count && dropped.count == bargeIns.count, "\(lines)")
        #expect(times.first.map { $0 > 1.3 && $0 < 2.5 } == true, "the first at the caller's first word: \(times)")
        #expect(dropped.first.map { $0 > 1.5 && $0 < greeting } == true, "\(bargeIns)")
        #expect(bargeIns.allSatisfy { $0.hasSuffix(", 0.0 seconds queued") }, "\(bargeIns)")
        // Everything the caller sent was heard: as long as the call, nothing dropped; and both
        // sentences were answered.
        let summary = try #require(lines.first { $0.hasPrefix("call with alice: heard ") })
        let heard = try #require(number(after: "heard ", in: summary))
        #expect(heard > spoken - 0.3, "\(summary)")
        #expect(summary.hasSuffix(", 0 samples dropped"), "\(summary)")
        #expect(lines.filter { $0.hasPrefix("heard ") }.count >= 2, "\(lines)")
        let recorded = try await ExampleBotsTests.played(folder.appendingPathComponent("alice-heard.wav").path)
        #expect(recorded.seconds > spoken - 0.3, "\(recorded)")
    }

    @Test(arguments: [
        ("recorder-bot", ["ws://127.0.0.1:1/signaling"]),
        ("call-responder", ["not a url", "token"]),
        ("transcriber-tap", []),
        ("announcer-bot", ["ws://127.0.0.1:1/signaling", "token", "bob"]),
        ("whip-publisher", ["http://127.0.0.1:1/whip", "/nonexistent/clip.webm"]),
        ("voice-agent", ["ws://127.0.0.1:1/signaling", "token", "/nonexistent/reply.wav"]),
        ("chat-bot", ["ws://127.0.0.1:1/signaling"]),
        ("room-recorder", ["ws://127.0.0.1:1", "0", "10"]),
    ])
    func everyExamplePrintsItsUsageOnBadArguments(_ name: String, _ arguments: [String]) async throws {
        let run = try await runToEnd(Callbot.product(name), arguments)
        #expect(run.status == 64, "\(name): \(run.status) \(run.stderr)")
        #expect(run.stderr.contains("usage: \(name) "), "\(name): \(run.stderr)")
    }
}
