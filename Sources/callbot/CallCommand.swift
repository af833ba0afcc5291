import ArgumentParser
import Foundation
import SwiftRTC

/// `callbot call USER... --server URL [--server URL...] --token T`: log in to a signaling
/// server, call the users (one: a 1:1 call; two or three: a mesh), send media, print events and
/// statsString (with `--chat`, chat lines both ways), hang up after `--duration` (or on
/// SIGINT/SIGTERM) and print how the call ended.
struct CallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Call users through a signaling server: media, live stats, recording, hang up.",
        discussion: """
            Exits 0 when the call was answered and ended normally (completed), 1 otherwise \
            (rejected, no answer, failed...), printing "call: ended RESULT after S s" either way; \
            64 for a wrong command line, 77 when the server refused the token, 69 when no server \
            could be reached.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var statsOutput: StatsOptions
    @OptionGroup var prometheus: MetricsOptions
    @Argument(help: ArgumentHelp("The users to call (1 to 3).", valueName: "USER"))
    var users: [String]
    @OptionGroup var signaling: SignalingOptions
    @Flag(help: "An audio-only call (default: video).")
    var audioOnly = false
    @Option(
        name: .customLong("user-info"),
        help: ArgumentHelp("User info sent with the call; repeatable.", valueName: "KEY=VALUE")
    )
    var userInfo: [String] = []
    @Option(help: ArgumentHelp("Seconds to wait for an answer (at least 10).", valueName: "SECONDS"))
    var answerTimeout: Double = 45
    @Option(
        help: ArgumentHelp("Seconds between two call requests while unanswered (at least 3).", valueName: "SECONDS")
    )
    var dialingInterval: Double = 5
    @OptionGroup var media: MediaOptions
    @OptionGroup var ice: IceOptions
    @OptionGroup var call: CallSessionOptions
    @OptionGroup var record: RecordOptions
    @OptionGroup var eventLines: EventsOptions
    @OptionGroup var chat: ChatOptions
    @Option(
        help: ArgumentHelp(
            "Hang up this many seconds after connecting (default: when interrupted or everyone left).",
            valueName: "SECONDS"
        )
    )
    var duration: Double?
    @Option(help: ArgumentHelp("Print the stats every SECONDS.", valueName: "SECONDS"))
    var statsInterval: Double = 5

    func validate() throws {
        guard (1...3).contains(Set(users).count) else { throw ValidationError("give 1 to 3 users to call") }
        _ = try SessionPrinter.userInfo(userInfo)
        try Seconds.check(duration, "--duration")
        try Seconds.check(statsInterval, "--stats-interval")
        try Seconds.check(answerTimeout, "--answer-timeout")
        try Seconds.check(dialingInterval, "--dialing-interval")
    }

    func run() async throws {
        global.apply()
        let metricsServer = try await prometheus.start()
        defer { metricsServer?.cancel() }
        let signals = TerminationSignals()
        let channel = try await signaling.connect()
        printLine("call: logged in as \(channel.userID)")
        let configuration = try call.configuration(
            ice: ice,
            gatherAddresses: signaling.gatherAddresses,
            dialing: dialingInterval,
            answer: answerTimeout
        )
        let client = CallClient(channel: channel, configuration: configuration)
        let signalingLines = await SignalingOptions.printStates(of: client)
        let session = try await client.createSession(opponents: users, conferenceType: audioOnly ? .audio : .video)
        let events = await session.events()
        let local = CallMedia.make(
            audio: media.noAudio ? nil : media.audio ?? .tone,
            video: audioOnly || media.noVideo ? nil : media.video ?? .pattern,
            audioTrack: session.localAudioTrack,
            videoTrack: session.localVideoTrack
        )
        let playing = await local.start(whenConnected: session)
        if media.noAudio { session.localAudioTrack.isEnabled = false }
        if media.noVideo { session.localVideoTrack?.isEnabled = false }
        let chatting = await chat.input()?.follow(session, prefix: "call", eventsJSON: eventLines.eventsJSON)
        try await session.startCall(userInfo: try SessionPrinter.userInfo(userInfo))
        printLine("call: calling \(users.joined(separator: ",")) in session \(session.id)")
        let items = try call.items()
        if !items.isEmpty { await session.updateCustomItems(items) }

        let printer = sessionPrinter()
        let following = Task { await printer.follow(session, events: events) }
        // Hang up after --duration from the first connection, or on a signal.
        let hangUp = Task {
            let connectedEvents = await session.events()
            if duration != nil {
                for await event in connectedEvents { if case .connected = event { break } }
            }
            await signals.wait(upTo: duration.map(Seconds.duration))
            guard !Task.isCancelled else { return }
            await session.hangUp(userInfo: ["reason": signals.signal == nil ? "duration" : "signal"])
        }
        let mute = call.muteLater(session, prefix: "call")
        let result = await following.value
        await chatting?.value
        hangUp.cancel()
        mute?.cancel()
        playing.cancel()
        local.stop()
        await client.disconnect()
        signalingLines.cancel()
        guard result?.result == .completed else { throw ExitCode(1) }
    }

    /// The printer of the call.
    private func sessionPrinter() -> SessionPrinter {
        SessionPrinter(
            prefix: "call",
            statsInterval: statsInterval,
            record: record,
            reportPath: call.report,
            statsJSON: statsOutput.statsJSON,
            snapshots: call.snapshots,
            eventsJSON: eventLines.eventsJSON
        )
    }
}
