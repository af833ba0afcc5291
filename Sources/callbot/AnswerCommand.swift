import ArgumentParser
import Foundation
import SwiftRTC

/// `callbot answer --server URL [--server URL...] --token T`: log in and answer incoming calls:
/// accept (at once or after `--delay`) or reject; send media, print events and statsString
/// (with `--chat`, chat lines both ways), record, hang up after `--duration` or when the
/// others leave.
struct AnswerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "answer",
        abstract:
            "Answer calls from a signaling server: accept (after a delay) or reject; media, live stats, recording.",
        discussion: """
            Prints READY USER once logged in. Takes --calls calls (default 1); a call that comes in \
            during another is rejected as busy. Exits 0 when every call taken ended completed, 1 \
            otherwise; 64 for a wrong command line, 77 when the server refused the token, 69 when \
            no server could be reached. SIGINT/SIGTERM hangs up and exits.
            """
    )

    enum Mode: String, ExpressibleByArgument, CaseIterable { case accept, reject }

    @OptionGroup var global: GlobalOptions
    @OptionGroup var statsOutput: StatsOptions
    @OptionGroup var prometheus: MetricsOptions
    @OptionGroup var signaling: SignalingOptions
    @Option(help: "accept or reject incoming calls.")
    var mode: Mode = .accept
    @Option(help: ArgumentHelp("Seconds to ring before accepting.", valueName: "SECONDS"))
    var delay: Double = 0
    @Option(help: ArgumentHelp("How many calls to handle before exiting.", valueName: "N"))
    var calls: Int = 1
    @Option(
        name: .customLong("user-info"),
        help: ArgumentHelp("User info sent with the accept or reject; repeatable.", valueName: "KEY=VALUE")
    )
    var userInfo: [String] = []
    @OptionGroup var media: MediaOptions
    @OptionGroup var ice: IceOptions
    @OptionGroup var call: CallSessionOptions
    @OptionGroup var record: RecordOptions
    @OptionGroup var eventLines: EventsOptions
    @OptionGroup var chat: ChatOptions
    @Option(
        help: ArgumentHelp(
            "Hang up this many seconds after connecting (default: when the others leave).",
            valueName: "SECONDS"
        )
    )
    var duration: Double?
    @Option(help: ArgumentHelp("Print the stats every SECONDS.", valueName: "SECONDS"))
    var statsInterval: Double = 5

    func validate() throws {
        guard calls >= 1 else { throw ValidationError("--calls must be 1 or more") }
        try Seconds.check(delay, "--delay", above: 0, orEqual: true)
        try Seconds.check(duration, "--duration")
        try Seconds.check(statsInterval, "--stats-interval")
        _ = try SessionPrinter.userInfo(userInfo)
    }

    func run() async throws {
        global.apply()
        let metricsServer = try await prometheus.start()
        defer { metricsServer?.cancel() }
        let signals = TerminationSignals()
        let channel = try await signaling.connect()
        let configuration = try call.configuration(ice: ice, gatherAddresses: signaling.gatherAddresses)
        let client = CallClient(channel: channel, configuration: configuration)
        let clientEvents = await client.events()
        let signalingLines = await SignalingOptions.printStates(of: client)
        printLine("READY \(channel.userID)")
        let info = try SessionPrinter.userInfo(userInfo)
        let chatInput = chat.input()
        let printer = sessionPrinter()
        // Each call is answered in a task of its own, so that a call coming in during another
        // one is rejected as busy (the library says so: this user is in a call) rather than
        // queued; once --calls calls are taken, later ones are refused as busy until those
        // have ended, and then the command exits.
        let taken = TakenCalls()
        let work = Task { () -> Bool in
            let (allTaken, signal) = AsyncStream.makeStream(of: Void.self)
            let listener = Task {
                for await event in clientEvents {
                    guard case .incomingSession(let session, let callerInfo) = event else { continue }
                    await take(
                        session,
                        callerInfo: callerInfo,
                        client: client,
                        taken: taken,
                        info: info,
                        printer: printer,
                        chat: chatInput
                    )
                    if await taken.count >= calls { signal.yield() }
                }
            }
            for await _ in allTaken { break }
            let completed = await taken.allCompleted()
            listener.cancel()
            return completed
        }
        let completed = await Self.value(of: work, unless: signals)
        work.cancel()
        await client.disconnect()
        signalingLines.cancel()
        if completed == false { throw ExitCode(1) }
    }

    /// The value of `work` once it ends, or nil when SIGINT or SIGTERM comes first (the work
    /// is cancelled then).
    private static func value(of work: Task<Bool, Never>, unless signals: TerminationSignals) async -> Bool? {
        await withTaskGroup(of: Bool?.self) { group in
            group.addTask {
                await signals.wait(upTo: nil)
                return nil
            }
            // Cancelling the group (on a signal) cancels the work too: awaiting it would not.
            group.addTask {
                await withTaskCancellationHandler {
                    await work.value
                } onCancel: {
                    work.cancel()
                }
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// The printer of each call taken.
    private func sessionPrinter() -> SessionPrinter {
        SessionPrinter(
            prefix: "answer",
            statsInterval: statsInterval,
            record: record,
            reportPath: call.report,
            statsJSON: statsOutput.statsJSON,
            snapshots: call.snapshots,
            eventsJSON: eventLines.eventsJSON
        )
    }

    /// Prints an incoming call, then rejects it (with `--mode reject`, when `--calls` calls are
    /// taken or one is under way) or answers it in a task of its own, added to `taken`.
    private func take(
        _ session: CallSession,
        callerInfo: [String: String],
        client: CallClient,
        taken: TakenCalls,
        info: [String: String],
        printer: SessionPrinter,
        chat chatInput: ChatInput?
    ) async {
        printLine(
            "answer: call \(session.id) from \(session.initiator) (\(session.conferenceType.rawValue), with \(session.opponents.joined(separator: ","))) \(SessionPrinter.text(callerInfo))"
        )
        if eventLines.eventsJSON {
            EventLine.print([
                "event": "incoming", "session": session.id, "user": session.initiator,
                "user_info": callerInfo,
            ])
        }
        let inCall = await client.activeSession() != nil
        let count = await taken.count
        if mode == .reject || count >= calls || inCall {
            try? await session.rejectCall(userInfo: info)
            printLine("answer: rejected\(mode == .accept ? " (busy)" : "")")
            if mode == .reject { await taken.add(Task { nil }) }
        } else {
            await taken.add(Task { await answer(session, info: info, printer: printer, chat: chatInput) })
        }
    }

    /// Accepts `session` and follows it to its end; returns how it ended.
    private func answer(
        _ session: CallSession,
        info: [String: String],
        printer: SessionPrinter,
        chat: ChatInput?
    ) async -> CallRecord? {
        let events = await session.events()
        let chatting = await chat?.follow(session, prefix: "answer", eventsJSON: eventLines.eventsJSON)
        if delay > 0 { try? await Task.sleep(for: Seconds.duration(delay)) }
        let local = CallMedia.make(
            audio: media.noAudio ? nil : media.audio ?? .tone,
            video: session.localVideoTrack == nil || media.noVideo ? nil : media.video ?? .pattern,
            audioTrack: session.localAudioTrack,
            videoTrack: session.localVideoTrack
        )
        let playing = await local.start(whenConnected: session)
        if media.noAudio { session.localAudioTrack.isEnabled = false }
        if media.noVideo { session.localVideoTrack?.isEnabled = false }
        do {
            try await session.acceptCall(userInfo: info)
            printLine("answer: accepted")
            let items = (try? call.items()) ?? [:]
            if !items.isEmpty { await session.updateCustomItems(items) }
        } catch {
            printLine("answer: cannot accept: \(error)")
        }
        let hangUp = Task {
            guard let duration else { return }
            let connected = await session.events()
            for await event in connected { if case .connected = event { break } }
            try? await Task.sleep(for: Seconds.duration(duration))
            guard !Task.isCancelled else { return }
            await session.hangUp(userInfo: ["reason": "duration"])
        }
        let mute = call.muteLater(session, prefix: "answer")
        let following = Task { await printer.follow(session, events: events) }
        let record = await withTaskCancellationHandler {
            await following.value
        } onCancel: {
            Task { await session.hangUp(userInfo: ["reason": "signal"]) }
        }
        await chatting?.value
        hangUp.cancel()
        mute?.cancel()
        playing.cancel()
        local.stop()
        return record
    }
}

/// The calls `answer` took, each followed in its own task to its end.
actor TakenCalls {
    private var calls: [Task<CallRecord?, Never>] = []

    var count: Int { calls.count }

    func add(_ call: Task<CallRecord?, Never>) { calls.append(call) }

    /// Waits for every call taken to end; whether each ended completed (a rejected one counts
    /// as done, not failed).
    func allCompleted() async -> Bool {
        var completed = true
        for call in calls {
            if let record = await call.value, record.result != .completed { completed = false }
        }
        return completed
    }
}
