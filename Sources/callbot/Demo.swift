import ArgumentParser
import Foundation
import SwiftRTC
import Synchronization

/// `callbot demo`: two bots in this process make a video call through the call-session API
/// over a signaling server embedded in the process: live statsString, a few chat lines on the
/// call's chat channel, a custom item, hang up, the call log, and a summary of what each side
/// decoded.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Two bots in this process make a video call over an embedded signaling server; prints live stats and the call log."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var statsOutput: StatsOptions

    @Option(help: "How long the call lasts, in seconds.")
    var duration: Double = 10

    @Option(help: "Seconds between two statsString prints.")
    var statsInterval: Double = 2

    @Option(help: "Video width of the test pattern.")
    var width: Int = 640

    @Option(help: "Video height of the test pattern.")
    var height: Int = 480

    @Option(help: "Frames per second of the test pattern.")
    var fps: Int = 30

    @OptionGroup var bandwidth: BandwidthOptions

    func validate() throws {
        try Seconds.check(duration, "--duration")
        try Seconds.check(statsInterval, "--stats-interval")
        guard width >= 16, height >= 16, width <= 4096, height <= 4096 else {
            throw ValidationError("--width/--height must be 16...4096")
        }
        guard (1...60).contains(fps) else { throw ValidationError("--fps must be 1...60") }
    }

    func run() async throws {
        global.apply()
        let signaling = try await DemoSignaling.start(users: ["alice", "bob"])
        print("demo: signaling \(signaling.description) (users alice, bob)")
        let configuration = CallConfiguration(
            gatherAddresses: ["127.0.0.1"],
            audioBandwidthCap: bandwidth.maxAudioKbps.map { $0 * 1000 },
            videoBandwidthCap: bandwidth.maxVideoKbps.map { $0 * 1000 }
        )
        let alice = CallClient(channel: try await signaling.channel(for: "alice"), configuration: configuration)
        let bob = CallClient(channel: try await signaling.channel(for: "bob"), configuration: configuration)

        // Bob answers the first call that comes in, sending a tone and the test pattern.
        let bobEvents = await bob.events()
        let bobSession = answerFirstCall(bobEvents)

        let call = try await alice.createSession(opponents: ["bob"], conferenceType: .video)
        let aliceEvents = await call.events()
        Self.chat(await call.messages(), in: call, label: "alice") { _ in nil }
        play(into: call, frequency: 440)
        print("demo: alice calls bob")
        try await call.startCall(userInfo: ["topic": "demo"])
        guard let (incoming, bobCallEvents) = await bobSession.value else { throw ExitCode(1) }
        let callerReceived = DemoTally(), calleeReceived = DemoTally()
        let watchers = [
            callerReceived.follow(aliceEvents, label: "alice"), calleeReceived.follow(bobCallEvents, label: "bob"),
        ]

        let connected = await Self.waitConnected(call, incoming, timeout: .seconds(30))
        let pc = await call.peerConnection(for: "bob")
        let iceTime = await pc?.iceConnectedAfter, dtlsTime = await pc?.dtlsConnectedAfter
        if connected {
            print("demo: connected (ICE \(Self.ms(iceTime)), DTLS \(Self.ms(dtlsTime)) after start)")
            Self.say("hello bob, this is alice", in: call, label: "alice")
        } else {
            print("demo: not connected: alice \(await call.state.rawValue), bob \(await incoming.state.rawValue)")
        }

        try await printStats(call, incoming, connected: connected)

        await call.hangUp(userInfo: ["bye": "see you"])
        _ = await Self.waitClosed(incoming, timeout: .seconds(5))
        for watcher in watchers { watcher.cancel() }
        if let record = await incoming.record {
            print(
                "demo: bob's call ended: \(record.result.rawValue), \(String(format: "%.1f", record.duration)) s, custom items \(record.customItems.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","))"
            )
        }
        // The server writes the log once both have left.
        let log = try await callLog(of: alice)
        print("demo: call log of alice (\(log.count)):")
        for record in log { print("  " + Self.describe(record)) }
        await alice.disconnect()
        await bob.disconnect()
        await signaling.stop()

        try summarize(callerReceived, calleeReceived, connected: connected, ice: iceTime, dtls: dtlsTime)
    }

    /// Bob answers the first call that comes in, sending a tone and the test pattern: a task
    /// with the call and its events (nil if none came).
    func answerFirstCall(
        _ bobEvents: AsyncStream<CallClientEvent>
    ) -> Task<(CallSession, AsyncStream<CallSessionEvent>)?, Never> {
        Task { () -> (CallSession, AsyncStream<CallSessionEvent>)? in
            for await event in bobEvents {
                guard case .incomingSession(let session, let info) = event else { continue }
                print(
                    "demo: bob gets a call from \(session.initiator) (\(session.conferenceType.rawValue)), user info \(info)"
                )
                let events = await session.events()
                // Bob answers a greeting on the chat, quoting it.
                Self.chat(await session.messages(), in: session, label: "bob") { chat in
                    guard case .text(let text) = chat.message, text.hasPrefix("hello") else { return nil }
                    return "hi \(chat.from), got \"\(text)\""
                }
                play(into: session, frequency: 660)
                try? await session.acceptCall(userInfo: ["answer": "hi alice"])
                return (session, events)
            }
            return nil
        }
    }

    /// One stats print per interval while connected (a custom item half way), then the rest
    /// of `--duration`.
    func printStats(_ call: CallSession, _ incoming: CallSession, connected: Bool) async throws {
        let prints = connected ? max(1, Int(duration / statsInterval)) : 0
        for index in 0..<prints {
            try await Task.sleep(for: Seconds.duration(statsInterval))
            if statsOutput.statsJSON {
                // One line per side, `STATS USER {...}` as call and answer print them.
                if let report = await call.stats(for: "bob") { print(statsJSONLine(report, user: "bob")) }
                if let report = await incoming.stats(for: "alice") { print(statsJSONLine(report, user: "alice")) }
            } else {
                print("--- caller (alice), \(String(format: "%g", Double(index + 1) * statsInterval)) s ---")
                print(await call.statsString(for: "bob") ?? "-")
                print("--- callee (bob) ---")
                print(await incoming.statsString(for: "alice") ?? "-")
            }
            if index == prints / 2 {
                await call.updateCustomItems(["topic": "SwiftRTC demo", "stage": "halfway"])
                Self.say("halfway: the topic is now SwiftRTC demo", in: call, label: "alice")
            }
        }
        let rest = duration - Double(prints) * statsInterval
        if connected, rest > 0 { try await Task.sleep(for: Seconds.duration(rest)) }
    }

    /// Alice's call log, once the server has written it (it does once both have left; up to
    /// 5 s).
    func callLog(of alice: CallClient) async throws -> [CallRecord] {
        var log: [CallRecord] = []
        for _ in 0..<50 {
            log = (try? await alice.callLog(limit: 5)) ?? []
            if !log.isEmpty { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return log
    }

    /// Prints the summary line: whether the call connected, how fast, what each side decoded;
    /// fails unless both sides decoded audio and video.
    func summarize(
        _ callerReceived: DemoTally,
        _ calleeReceived: DemoTally,
        connected: Bool,
        ice iceTime: Duration?,
        dtls dtlsTime: Duration?
    ) throws {
        let a = callerReceived.values.withLock { $0 }, b = calleeReceived.values.withLock { $0 }
        print(
            "demo: \(connected ? "connected" : "failed") | ICE \(Self.ms(iceTime)) | DTLS \(Self.ms(dtlsTime))"
                + " | caller decoded audio \(a.audioFrames) frames rms \(String(format: "%.3f", a.rms)), video \(a.videoFrames) frames \(a.width)x\(a.height)"
                + " | callee decoded audio \(b.audioFrames) frames rms \(String(format: "%.3f", b.rms)), video \(b.videoFrames) frames \(b.width)x\(b.height)"
        )
        guard connected, a.audioFrames > 0, a.videoFrames > 0, b.audioFrames > 0, b.videoFrames > 0 else {
            throw ExitCode(1)
        }
    }

    func play(into session: CallSession, frequency: Double) {
        session.localAudioTrack.play(ToneGenerator(frequency: frequency))
        session.localVideoTrack?.play(TestPatternSource(width: width, height: height, framesPerSecond: fps))
    }

    /// Prints each chat message that arrives, `demo: LABEL gets chat from USER: TEXT`, and
    /// sends back what `reply` makes of it, if anything.
    static func chat(
        _ messages: AsyncStream<ChatMessage>,
        in session: CallSession,
        label: String,
        reply: @escaping @Sendable (ChatMessage) -> String?
    ) {
        Task {
            for await chat in messages {
                print("demo: \(label) gets chat from \(chat.from): \(ChatInput.text(of: chat.message))")
                if let answer = reply(chat) { say(answer, in: session, label: label, to: chat.from) }
            }
        }
    }

    /// Says so and sends `text` on the chat channel to `user` (nil: to everyone).
    static func say(_ text: String, in session: CallSession, label: String, to user: String? = nil) {
        print("demo: \(label) says on the chat: \(text)")
        Task {
            do {
                if let user {
                    try await session.send(.text(text), to: user)
                } else {
                    try await session.sendToAll(.text(text))
                }
            } catch {
                print("demo: \(label) could not chat: \(error)")
            }
        }
    }

    /// One call-log line: id, caller -> callees, kind, result, duration, start time.
    static func describe(_ record: CallRecord) -> String {
        let started = ISO8601DateFormatter().string(from: record.started)
        return
            "\(record.callId) \(record.caller) -> \(record.callees.joined(separator: ",")) \(record.conferenceType.rawValue)"
            + " \(record.result.rawValue) \(String(format: "%.1f", record.duration)) s started \(started)"
    }

    static func ms(_ duration: Duration?) -> String {
        guard let duration else { return "-" }
        return "\(duration.milliseconds)ms"
    }

    static func waitConnected(_ sessions: CallSession..., timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var all = true
            for session in sessions {
                switch await session.state {
                case .connected: continue
                case .closed: return false
                default: all = false
                }
            }
            if all { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    static func waitClosed(_ session: CallSession, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await session.state == .closed { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}

/// What one side of the demo decoded, and the events it printed.
final class DemoTally: Sendable {
    struct Values: Sendable {
        var audioFrames = 0
        var sumSquares = 0.0
        var samples = 0
        var videoFrames = 0
        var width = 0
        var height = 0
        var rms: Double { samples == 0 ? 0 : (sumSquares / Double(samples)).squareRoot() / 32768 }
    }

    let values = Mutex(Values())

    /// Counts the decoded frames of every remote track and prints the notable events.
    func follow(_ events: AsyncStream<CallSessionEvent>, label: String) -> Task<Void, Never> {
        Task {
            for await event in events {
                switch event {
                case .receivedRemoteAudioTrack(_, let track), .receivedRemoteVideoTrack(_, let track):
                    count(track.frames())
                case .accepted(let user, let info):
                    print("demo: \(label) sees \(user) accept, user info \(info)")
                case .customItemsChanged(let by, _, _, let items) where by != label:
                    print(
                        "demo: \(label) sees \(by) set custom items \(items.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","))"
                    )
                case .hungUp(let user, let info):
                    print("demo: \(label) sees \(user) hang up, user info \(info)")
                default:
                    break
                }
            }
        }
    }

    private func count(_ frames: AsyncStream<MediaFrame>) {
        Task {
            for await frame in frames {
                switch frame {
                case .audio(let audio):
                    let squares = audio.samples.reduce(0.0) { $0 + Double($1) * Double($1) }
                    self.values.withLock {
                        $0.audioFrames += 1
                        $0.sumSquares += squares
                        $0.samples += audio.samples.count
                    }
                case .video(let video):
                    self.values.withLock {
                        $0.videoFrames += 1
                        $0.width = video.width
                        $0.height = video.height
                    }
                case .encoded:
                    break
                }
            }
        }
    }
}
