import ArgumentParser
import Foundation
import SwiftRTC
import Synchronization

/// `--server URL [--server URL...] --token T` (or `--token-file FILE`,
/// `$SWIFTRTC_SIGNALING_TOKEN`: never logged) `[--ca-cert FILE]`: the signaling server (one
/// or several instances of it) `call` and `answer` log in to.
struct SignalingOptions: ParsableArguments {
    /// The environment variable the token is read from when neither option is given.
    static let tokenVariable = "SWIFTRTC_SIGNALING_TOKEN"

    @Option(
        help: ArgumentHelp(
            """
            The signaling server's WebSocket URL (as `callbot serve` prints it: ws://HOST:PORT/signaling, or wss:// with TLS). \
            Repeat the option to name several instances of one server: the first login tries them in order, and when the \
            connection drops the client logs in again to the next one (calls go on meanwhile).
            """,
            valueName: "URL"
        )
    )
    var server: [String] = []

    @Option(
        help: ArgumentHelp(
            "The bearer token (or USER:PASSWORD) to log in with; better: --token-file or $\(Self.tokenVariable).",
            valueName: "T"
        )
    )
    var token: String?

    @Option(help: ArgumentHelp("Read the token (or USER:PASSWORD) from the first line of FILE.", valueName: "FILE"))
    var tokenFile: String?

    @OptionGroup var tls: TLSClientOptions

    /// The `--server` URLs, in order (nil for one that is not a WebSocket URL).
    var urls: [URL?] {
        server.map { server in
            guard let url = URL(string: server), let scheme = url.scheme?.lowercased(),
                scheme == "ws" || scheme == "wss",
                let host = url.host, !host.isEmpty
            else { return nil }
            return url
        }
    }

    func validate() throws {
        guard !server.isEmpty else {
            throw ValidationError("give the signaling server: --server URL (repeat it for several instances)")
        }
        for (text, url) in zip(server, urls) where url == nil {
            throw ValidationError(
                "--server '\(text)' is not a WebSocket URL (expected ws://HOST:PORT/signaling or wss://...)"
            )
        }
        _ = try loginToken()
    }

    /// `--token`, else the first line of `--token-file`, else `$SWIFTRTC_SIGNALING_TOKEN`.
    func loginToken() throws -> String {
        let token = try Secret.read(
            option: "--token",
            value: token,
            fileOption: "--token-file",
            file: tokenFile,
            variable: Self.tokenVariable,
            check: Secret.nonEmpty
        )
        guard let token else {
            throw ValidationError("give the login token: --token T, --token-file FILE or $\(Self.tokenVariable)")
        }
        return token
    }

    /// Logs in. A server that refused the login exits with ``CallbotExit/refused``; none
    /// reached (or none whose certificate verifies) with ``CallbotExit/unreachable``.
    func connect() async throws -> WebSocketSignalingChannel {
        let urls = urls.compactMap { $0 }
        guard !urls.isEmpty, urls.count == server.count else { throw ValidationError("--server: give WebSocket URLs") }
        let token = try loginToken()
        let trust = try tls.trust()
        CleartextWarning.check(urls, sending: "the login token")
        do {
            return try await WebSocketSignalingChannel.connect(to: urls, token: token, trust: trust)
        } catch {
            let tlsFailure = "\(error)".contains("TLS")
            let message = "signaling \(server.joined(separator: ", ")): \(error)\(tlsFailure ? tls.hint : "")"
            if case .refused = error { throw CallbotExit.fail(CallbotExit.refused, message) }
            throw CallbotExit.fail(CallbotExit.unreachable, message)
        }
    }

    /// Where calls gather candidates: loopback when every server is on loopback, else every interface.
    var gatherAddresses: [String] {
        let each = urls.map { PeerConnection.Configuration.gatherAddresses(toReach: $0?.host ?? "") }
        return each.allSatisfy { $0 == each.first }
            ? each.first ?? [] : PeerConnection.Configuration.gatherAddresses(toReach: "")
    }

    /// Prints a `signaling: ...` line each time the connection of `client`'s channel changes
    /// after the login (`reconnecting (attempt N): ERROR`, `connected to URL`, `closed: REASON`
    /// unless the command closed it).
    static func printStates(of client: CallClient) async -> Task<Void, Never> {
        let events = await client.events()
        return Task {
            var dropped = false
            for await event in events {
                guard case let .signaling(state) = event else { continue }
                if case .reconnecting = state { dropped = true }
                // The login's own `connected` is said by the command's first line, its own close by the last.
                if case .connected = state, !dropped { continue }
                if state == .closed(.closedByClient) { continue }
                printLine("signaling: \(state)")
            }
        }
    }
}

/// `--record DIR --record-option OPTION`, `--trim-silence` and the rollover options.
struct RecordOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Record the call into DIR (WebM/Ogg files named call-DATE-TIME-USER, never replacing a file).",
            valueName: "DIR"
        )
    )
    var record: String?

    @Option(
        help: ArgumentHelp(
            "What to record: remote_audio_video, remote_audio, local_and_remote_audio, local_audio_remote_audio_video.",
            valueName: "OPTION"
        )
    )
    var recordOption: RecordingOption = .remoteAudioVideo

    @Flag(help: "Leave leading and trailing silence out of the --record recordings (voice activity on their audio).")
    var trimSilence = false

    @OptionGroup var rollover: RecordRolloverOptions

    func validate() throws {
        if trimSilence && record == nil { throw ValidationError("--trim-silence trims recordings: add --record DIR") }
        if recordOption != .remoteAudioVideo && record == nil {
            throw ValidationError(
                "--record-option \(recordOption.rawValue) chooses what --record records: add --record DIR"
            )
        }
        try rollover.check(record: record)
        guard let record else { return }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: record, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--record \(record): no such folder")
        }
    }
}

extension RecordingOption: ExpressibleByArgument {}

/// Prints what happens in a session (one line per event, `PREFIX: ...`), statsString per user
/// every interval once connected, starts the recording once connected, and with a report
/// path writes the bot report (DESIGN.md) of the call with the first other user when it ends.
struct SessionPrinter: Sendable {
    let prefix: String
    let statsInterval: Double
    let record: RecordOptions
    var reportPath: String?
    var statsJSON = false
    /// With `--snapshots DIR`: each other user's latest picture goes to DIR/snapshot-USER.png
    /// every stats interval.
    var snapshots: String?
    /// With `--events-json`: an `EVENT {...}` line per event too.
    var eventsJSON = false

    /// Follows `session` until it ends; returns its record.
    func follow(_ session: CallSession, events: AsyncStream<CallSessionEvent>) async -> CallRecord? {
        let prefix = prefix
        let started = ContinuousClock.now
        let peer = session.otherParticipants.first ?? ""
        // The newest stats of the connection with `peer`, every second, for the report.
        let lastStats = Mutex<StatsReport?>(nil)
        // The bot's metrics follow each connection's stats every second (BotMetrics).
        let metrics = Dictionary(session.otherParticipants.map { ($0, BotMetrics.Connection()) }) { first, _ in first }
        BotMetrics.callStarted()
        let stats = followStats(of: session, metrics: metrics) { user, report in
            if user == peer { lastStats.withLock { $0 = report } }
        }
        defer { stats.cancel() }
        // The level of what `peer` says, from the decoded audio, for the report's `rms`.
        let meter = Mutex(AudioLevelMeter())
        var report = BotReport(role: session.isIncoming ? "callee" : "caller")
        report.callId = session.id
        report.callUsers = session.otherParticipants
        var recording = false
        for await event in events {
            if eventsJSON, let fields = EventLine.fields(of: event, session: session.id) { EventLine.print(fields) }
            Self.note(event, peer: peer, started: started, in: &report)
            switch event {
            case .connected(let user):
                printLine("\(prefix): connected with \(user)")
                if !recording, let directory = record.record {
                    recording = true
                    await startRecording(session, into: directory)
                }
            case .receivedRemoteAudioTrack(let user, let track) where user == peer && reportPath != nil:
                track.setAudioSink { frame in meter.withLock { $0.analyze(frame) } }
            case .ended(let record):
                BotMetrics.callEnded(connected: report.connected)
                for file in await session.recordedFiles { printLine("\(prefix): recorded \(file.path)") }
                printLine(
                    "\(prefix): ended \(record.result.rawValue) after \(String(format: "%.1f", record.duration)) s"
                )
                if let reportPath {
                    report.callResult = record.result.rawValue
                    report.durationMs = CallMonitor.milliseconds(ContinuousClock.now - started)
                    if let last = lastStats.withLock({ $0 }) { CallMonitor.fill(&report, from: last) }
                    if report.audio.rtpPacketsReceived != nil { report.audio.rms = meter.withLock { $0.rms } }
                    do { try report.write(to: reportPath) } catch {
                        log("error: cannot write the report to \(reportPath): \(error.localizedDescription)")
                    }
                }
                return record
            default:
                printEvent(event)
            }
        }
        return await session.record
    }

    /// Notes in `report` what `event` says of the call with `peer`: connected (and when), or
    /// failed; a recording that failed.
    private static func note(
        _ event: CallSessionEvent,
        peer: String,
        started: ContinuousClock.Instant,
        in report: inout BotReport
    ) {
        switch event {
        case .connected(let user) where user == peer:
            report.connected = true
            report.dtlsConnectedMs = CallMonitor.milliseconds(ContinuousClock.now - started)
        case .connectionFailed(let user) where user == peer:
            report.errors.append("the connection with \(user) failed")
        case .recordingFailed(let reason):
            report.errors.append(reason)
        default:
            break
        }
    }

    /// Every second, feeds each connected user's stats to its metrics and to `received`; every
    /// stats interval, prints them (a JSON line with `--stats-json`) and takes the snapshots.
    private func followStats(
        of session: CallSession,
        metrics: [String: BotMetrics.Connection],
        received: @escaping @Sendable (String, StatsReport) -> Void
    ) -> Task<Void, Never> {
        Task {
            var sinceText = 0.0
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(Int(min(1, statsInterval) * 1000)))
                sinceText += min(1, statsInterval)
                for user in session.otherParticipants where await session.connectionState(for: user) == .connected {
                    guard let report = await session.stats(for: user) else { continue }
                    metrics[user]?.update(report)
                    received(user, report)
                }
                guard sinceText >= statsInterval - 0.001 else { continue }
                sinceText = 0
                for user in session.otherParticipants where await session.connectionState(for: user) == .connected {
                    if statsJSON {
                        if let report = await session.stats(for: user) { printLine(statsJSONLine(report, user: user)) }
                    } else if let text = await session.statsString(for: user) {
                        printLine("--- \(prefix) stats with \(user) ---\n\(text)")
                    }
                    if let snapshots { await snapshot(session, of: user, into: snapshots) }
                }
            }
        }
    }

    /// Starts recording `session` into `directory` (`--record`), and says so; logs why not.
    private func startRecording(_ session: CallSession, into directory: String) async {
        do {
            try await session.startRecording(
                record.recordOption,
                directory: URL(fileURLWithPath: directory),
                trimming: record.trimSilence ? SilenceTrimming() : nil,
                rollover: record.rollover.rollover
            )
            printLine("\(prefix): recording \(record.recordOption.rawValue) into \(directory)")
        } catch {
            log("recording: \(error)")
        }
    }

    /// The line printed for an event of the session that needs nothing else done (none for
    /// the events that print no line).
    private func printEvent(_ event: CallSessionEvent) {
        switch event {
        case .accepted(let user, let info): printLine("\(prefix): \(user) accepted \(Self.text(info))")
        case let .rejected(user, info, busy):
            printLine("\(prefix): \(user) rejected\(busy ? " (busy)" : "") \(Self.text(info))")
        case .hungUp(let user, let info): printLine("\(prefix): \(user) hung up \(Self.text(info))")
        case .didNotRespond(let user): printLine("\(prefix): \(user) did not respond")
        case .connectionFailed(let user): printLine("\(prefix): connection with \(user) failed")
        case .reconnectionStateChanged(let user, let state):
            printLine("\(prefix): reconnection with \(user): \(state.rawValue)")
        case .remoteMediaSettingsChanged(let user, let audio, let video):
            printLine(
                "\(prefix): \(user) media audio \(audio.map { $0 ? "on" : "off" } ?? "-") video \(video.map { $0 ? "on" : "off" } ?? "-")"
            )
        case .customItemsChanged(let by, _, _, let items):
            printLine("\(prefix): custom items by \(by): \(Self.text(items))")
        case let .remoteRecordingChanged(user, active, option):
            printLine("\(prefix): \(user) \(active ? "started" : "stopped") recording \(option.rawValue)")
        case .recordingFailed(let reason): printLine("\(prefix): error: \(reason)")
        case .talking(let users): printLine("\(prefix): talking: \(users.sorted().joined(separator: ","))")
        default: break
        }
    }

    /// Writes `user`'s latest video picture to `folder`/snapshot-USER.png (replacing the
    /// previous one), and says so the first time.
    private func snapshot(_ session: CallSession, of user: String, into folder: String) async {
        guard let picture = await session.remoteVideoTrack(for: user)?.snapshot(timeout: .milliseconds(500)) else {
            return
        }
        // A user id comes from the server: only letters, digits, '-' and '_' reach the file name.
        let name = String(user.prefix(64).map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "_" })
        let path = URL(fileURLWithPath: folder).appendingPathComponent("snapshot-\(name).png").path
        let first = !FileManager.default.fileExists(atPath: path)
        do {
            try picture.writePNG(to: path)
            if first { printLine("\(prefix): snapshot of \(user) in \(path)") }
        } catch {
            log("snapshot: \(error)")
        }
    }

    static func text(_ dictionary: [String: String]) -> String {
        "{" + dictionary.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") + "}"
    }

    /// `KEY=VALUE` arguments as a dictionary.
    static func userInfo(_ pairs: [String], option: String = "--user-info") throws -> [String: String] {
        var info: [String: String] = [:]
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw ValidationError("\(option) '\(pair)': expected KEY=VALUE")
            }
            info[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        return info
    }
}
