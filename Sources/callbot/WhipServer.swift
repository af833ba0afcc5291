import ArgumentParser
import Foundation
import SwiftRTC
import Synchronization

/// `callbot whip-server --port P [--host ADDRESS]`: be a WHIP endpoint (RFC 9725) at
/// `http://ADDRESS:P/whip` (`https://` with `--tls-cert`/`--tls-key`; an address that is not
/// loopback needs them, or `--insecure`). Each POSTed offer gets a complete answer (all candidates); the
/// received media is echoed back, or the `--audio`/`--video` sources are sent instead.
/// `DELETE` on a session's Location ends that session; so does not connecting within
/// `--connect-timeout`, or failing. With a token (`--token`, `--token-file` or
/// `$SWIFTRTC_WHIP_TOKEN`) every request must carry it; `--max-sessions` and
/// `--max-sessions-per-address` bound what strangers can open.
struct WhipServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whip-server",
        abstract: "Be a WHIP endpoint (RFC 9725): answer offers, echo received media (or send sources), record.",
        discussion: """
            Prints READY <endpoint URL> on standard output once it listens. Runs until --duration \
            ends or SIGINT/SIGTERM arrives, then ends the sessions still open and writes the report \
            of the last session that ended (the last that connected, if one did), with \
            "sessions": <answered offers> and the endpoint's counters \
            ("whip_endpoint": sessions ended for not connecting in time or failing, offers refused \
            over a limit, requests refused without the token or as malformed). Exits 0 when that \
            session connected without errors, 1 otherwise.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var statsOutput: StatsOptions

    @Option(help: ArgumentHelp("The TCP port to listen on (0 picks a free one).", valueName: "P"))
    var port: Int

    @Option(help: ArgumentHelp("The address to listen on and gather ICE candidates on.", valueName: "ADDRESS"))
    var host = "127.0.0.1"

    @OptionGroup var media: MediaOptions
    @OptionGroup var ice: IceOptions
    @OptionGroup var bandwidth: BandwidthOptions
    @OptionGroup var options: RunOptions

    @OptionGroup var token: WhipTokenOptions
    @OptionGroup var tls: TLSServerOptions
    @OptionGroup var door: DoorOptions
    @OptionGroup var shutdown: ShutdownOptions

    @Option(help: ArgumentHelp("The most sessions open at once; a further offer gets 503.", valueName: "N"))
    var maxSessions = WHIPEndpoint.Configuration.defaultMaxSessions

    @Option(
        help: ArgumentHelp(
            "The most sessions open at once from one client address; a further offer gets 429.",
            valueName: "N"
        )
    )
    var maxSessionsPerAddress = WHIPEndpoint.Configuration.defaultMaxSessionsPerAddress

    @Option(help: ArgumentHelp("Seconds a session may take to connect before it is ended.", valueName: "S"))
    var connectTimeout = Double(WHIPEndpoint.Configuration.defaultConnectTimeout.components.seconds)

    @Option(
        help: ArgumentHelp(
            "Seconds a session may last, connected or not; it is ended then (the publisher may publish again).",
            valueName: "S"
        )
    )
    var maxSessionSeconds = WHIPEndpoint.Configuration.defaultMaxSessionDuration.seconds

    @Option(
        help: ArgumentHelp(
            "Record what each session receives into DIR: whip-YYYYMMDD-HHMMSS.webm (UTC, when it was answered; -2... after it; an existing file is never replaced).",
            valueName: "DIR"
        )
    )
    var record: String?

    @Option(
        help: ArgumentHelp(
            "The most megabytes of media one session's --record recording takes (its parts together); at it, the recording stops (the files stay playable) and the session goes on.",
            valueName: "MB"
        )
    )
    var recordMaxMegabytes = Self.defaultRecordMaxMegabytes

    /// Default of `--record-max-megabytes`: 4000 (some 9 hours of 1 Mbit/s video).
    static let defaultRecordMaxMegabytes = 4_000.0

    @Flag(help: "Leave leading and trailing silence out of --record recordings (voice activity on the received audio).")
    var trimSilence = false

    @OptionGroup var recordRollover: RecordRolloverOptions

    @Flag(help: "Echo every message on every data channel a peer opens, on the same channel.")
    var echoData = false

    static let gatheringTimeout = Duration.seconds(10)

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port) is not a TCP port (0 to 65535)") }
        guard !host.isEmpty, !host.contains("/"), !host.contains(" ") else {
            throw ValidationError("--host '\(host)' is not an address")
        }
        try tls.check(host: host)
        // Beyond loopback, a tokenless endpoint lets anyone who reaches it publish (and record).
        if !TLSServerOptions.isLoopback(host), try token.value() == nil {
            throw ValidationError(
                "--host \(host) is not a loopback address: give --token-file FILE (or --token, $\(WhipTokenOptions.environmentVariable)) so that only those who have it can publish"
            )
        }
        if let record {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: record, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw ValidationError("--record \(record): no such folder")
            }
        }
        if trimSilence && record == nil { throw ValidationError("--trim-silence trims recordings: add --record DIR") }
        try recordRollover.check(record: record)
        guard recordMaxMegabytes.isFinite, (0.01...1_000_000).contains(recordMaxMegabytes) else {
            throw ValidationError("--record-max-megabytes takes 0.01 to 1000000")
        }
        guard maxSessions >= 1 else { throw ValidationError("--max-sessions must be at least 1") }
        guard maxSessionsPerAddress >= 1 else { throw ValidationError("--max-sessions-per-address must be at least 1") }
        guard connectTimeout > 0, connectTimeout <= 3600 else {
            throw ValidationError("--connect-timeout must be a number of seconds above 0 (at most 3600)")
        }
        try Seconds.check(maxSessionSeconds, "--max-session-seconds", above: 1, orEqual: true)
        try shutdown.check()
    }

    func run() async throws {
        global.apply()
        PrometheusExport.bootstrap()
        let started = ContinuousClock.now
        let sessions = SessionLog()
        let settings = SessionSettings(
            configuration: bandwidth.apply(
                to: PeerConnection.Configuration(
                    iceServers: try ice.servers(),
                    iceTransportPolicy: ice.relayOnly ? .relay : .all,
                    gatherAddresses: Self.gatherAddresses(forHost: host)
                )
            ),
            audio: media.noAudio ? .none : media.audio.map(SessionSettings.Send.audio) ?? .echo,
            video: media.noVideo ? .none : media.video.map(SessionSettings.Send.video) ?? .echo,
            statsInterval: .seconds(options.statsInterval),
            statsJSON: statsOutput.statsJSON,
            recording: try record.map(SessionSettings.Recording.init),
            trimming: trimSilence ? SilenceTrimming() : nil,
            rollover: recordRollover.rollover,
            recordMaxBytes: Int(recordMaxMegabytes * 1_000_000),
            echoData: echoData
        )
        var configuration = WHIPEndpoint.Configuration(
            host: host,
            port: port,
            bearerToken: try token.value(),
            maxSessions: maxSessions,
            maxSessionsPerAddress: maxSessionsPerAddress,
            connectTimeout: Seconds.duration(connectTimeout),
            tls: try tls.identity()
        )
        configuration.door = door.configuration
        configuration.maxSessionDuration = Seconds.duration(maxSessionSeconds)
        let endpoint = WHIPEndpoint(configuration: configuration) { offer in
            try await Self.answer(offer, settings: settings, sessions: sessions)
        }
        log(configuration.description)
        // SIGTERM or SIGINT (or --duration) stops it taking offers and ends the sessions
        // (ServiceLifecycle); the report follows.
        do {
            try await ServerServices.run(
                { try await endpoint.run { url in printLine("READY \(url.absoluteString)") } },
                limit: options.duration.map { Duration.seconds($0) },
                shutdownDeadline: shutdown.deadline
            )
        } catch {
            log("error: WHIP endpoint: \(error)")
            sessions.recordError("WHIP endpoint on \(host):\(port): \(error)")
        }
        await endpoint.endAllSessions()
        let counters = endpoint.stats
        log("WHIP endpoint: \(counters)")
        var report = sessions.report ?? BotReport(role: "whip-server")
        report.sessions = sessions.count
        report.whipEndpoint = BotReport.WhipEndpoint(counters)
        report.errors += sessions.errors
        if sessions.count == 0 {
            report.errors.append(
                "no WHIP session was offered in \(CallMonitor.milliseconds(ContinuousClock.now - started)) ms"
            )
        }
        try report.finish(writingTo: options.report)
    }

    /// Answers one offer: a new PeerConnection, its media, the complete answer.
    static func answer(
        _ offer: String,
        settings: SessionSettings,
        sessions: SessionLog
    ) async throws -> (answer: String, session: any WHIPEndpointSession) {
        let started = ContinuousClock.now
        let number = sessions.begin()
        let connection = try PeerConnection(configuration: settings.configuration)
        let monitor = await CallMonitor(
            connection: connection,
            role: "whip-server",
            started: started,
            statsInterval: settings.statsInterval,
            label: number == 1 ? "" : "[\(number)]",
            statsJSON: settings.statsJSON
        )
        let local = settings.makeMedia()
        if settings.echoData { monitor.echoDataChannels() }
        do {
            do {
                try await connection.setRemoteDescription(SignalingDescription(type: .offer, sdp: offer))
            } catch {
                if case .invalidDescription = error { throw WHIPOfferRejected(error.description) }
                throw error
            }
            try await Whip.addMedia(local.send, to: connection)
            let created = try await connection.createAnswer()
            if let unusable = Self.unusableOffer(offer, answer: created.sdp) {
                throw WHIPOfferRejected(unusable, kind: .unusable)
            }
            try await connection.setLocalDescription(created)
            guard await Whip.gather(connection, timeout: gatheringTimeout) else {
                throw CallbotError("ICE gathering did not complete within \(gatheringTimeout)")
            }
            guard let answer = await connection.localDescription else { throw CallbotError("no local description") }
            await monitor.startMedia(echo: local.echo)
            // The sources start once connected (echo tracks are fed as media arrives).
            Task {
                if await monitor.waitConnected(timeout: .seconds(30)) { local.send.start() }
            }
            var recorder: MediaRecorder?
            if let recording = settings.recording {
                // What the peer sends: negotiated transceivers that receive (a track added for
                // a kind the offer did not carry makes one that never gets media).
                let receiving = await connection.transceivers.filter {
                    $0.mid != nil && ($0.currentDirection?.receives ?? $0.direction.receives)
                }
                do {
                    let file = try recording.folder.createFile(
                        base: SessionSettings.Recording.base(answeredAt: Date()),
                        extension: "webm"
                    )
                    recorder = try MediaRecorder(
                        tracks: receiving.map(\.receiver.track),
                        reservedFile: file,
                        trimming: settings.trimming,
                        rollover: settings.rollover,
                        maxBytes: settings.recordMaxBytes
                    )
                } catch {
                    log("error: session \(number): \(error)")
                    monitor.recordError("\(error)")
                }
            }
            let session = ServerSession(
                number: number,
                monitor: monitor,
                media: local.send,
                sessions: sessions,
                recorder: recorder
            )
            sessions.answered()
            log("session \(number): answered")
            return (answer.sdp, session)
        } catch {
            log("session \(number): \(error)")
            local.send.stop()
            let report = await monitor.finish()
            // An offer refused as the client's fault is no session of this run.
            if !(error is WHIPOfferRejected) { sessions.ended(report) }
            throw error
        }
    }

    /// Why `offer` cannot make a call, when it cannot: no audio, video or data section of it
    /// is accepted in `answer` (only codecs we do not have...).
    static func unusableOffer(_ offer: String, answer: String) -> String? {
        guard let offerDescription = try? SessionDescription(parsing: offer),
            let answerDescription = try? SessionDescription(parsing: answer),
            let negotiation = try? Negotiation(offer: offerDescription, answer: answerDescription)
        else { return nil }
        if negotiation.media.contains(where: { $0.accepted && [.audio, .video, .application].contains($0.kind) }) {
            return nil
        }
        return offerDescription.media.isEmpty
            ? "the offer has no media section"
            : "no audio, video or data section of the offer can be taken (Opus and VP8 are supported)"
    }

    /// Where to gather host candidates: the listening address when it is one IP address
    /// (loopback for `localhost`), every interface for a wildcard address or a host name.
    static func gatherAddresses(forHost host: String) -> [String] {
        switch host {
        case "0.0.0.0", "::", "[::]": return []
        case "localhost": return ["127.0.0.1"]
        default:
            let isAddress =
                host.allSatisfy { $0.isHexDigit || $0 == "." || $0 == ":" }
                && (host.contains(".") || host.contains(":"))
            return isAddress ? [host] : []
        }
    }
}

/// What every session of a `whip-server` run sends and records.
struct SessionSettings: Sendable {
    enum Send: Sendable {
        case none, echo
        case audio(AudioInput)
        case video(VideoInput)
    }

    var configuration: PeerConnection.Configuration
    var audio: Send
    var video: Send
    var statsInterval: Duration
    var statsJSON = false
    var recording: Recording?
    var trimming: SilenceTrimming?
    /// When a recording goes on in a new file.
    var rollover: MediaRecorder.Rollover?
    /// The most media bytes one session records.
    var recordMaxBytes: Int
    /// Whether the peer's data channels are echoed (`--echo-data`).
    var echoData = false

    /// Where the sessions record (`--record DIR`, as for `call` and `answer`): one file per
    /// session, `whip-YYYYMMDD-HHMMSS.webm` from this side's clock (UTC, when it was answered),
    /// `-2`... when that name is taken (nothing from the offer or the client goes into a name).
    struct Recording: Sendable {
        var folder: RecordingFolder

        init(_ record: String) throws {
            do { folder = try RecordingFolder(URL(fileURLWithPath: record)) } catch {
                throw CallbotError("--record \(record): \(error)")
            }
        }

        /// A session's file name without its extension, for a session answered at `date`.
        static func base(answeredAt date: Date) -> String {
            let format = DateFormatter()
            format.locale = Locale(identifier: "en_US_POSIX")
            format.timeZone = TimeZone(identifier: "UTC")
            format.dateFormat = "yyyyMMdd-HHmmss"
            return "whip-" + format.string(from: date)
        }
    }

    /// The session's local tracks: `send` are added to the connection; `echo` are those of
    /// them that repeat the received media.
    func makeMedia() -> (send: CallMedia, echo: CallMedia) {
        var inputs = (audio: AudioInput?.none, video: VideoInput?.none)
        if case let .audio(input) = audio { inputs.audio = input }
        if case let .video(input) = video { inputs.video = input }
        var send = CallMedia.make(audio: inputs.audio, video: inputs.video)
        var echo = CallMedia()
        if case .echo = audio {
            echo.audio = MediaStreamTrack(kind: .audio)
            send.audio = echo.audio
        }
        if case .echo = video {
            echo.video = MediaStreamTrack(kind: .video)
            send.video = echo.video
        }
        return (send, echo)
    }
}

/// The sessions of a `whip-server` run: how many were answered, and the report of the last one
/// that ended, preferring one that connected (a stranger's offer that never connects does not
/// replace the report of a call that did).
final class SessionLog: Sendable {
    private struct State {
        var offers = 0
        var count = 0
        var report: BotReport?
        var errors: [String] = []
    }
    private let state = Mutex(State())

    /// Numbers a new offer (from 1).
    func begin() -> Int {
        state.withLock {
            $0.offers += 1
            return $0.offers
        }
    }
    /// Counts an answered offer: a session.
    func answered() { state.withLock { $0.count += 1 } }
    func ended(_ report: BotReport) {
        state.withLock { state in
            if report.connected || state.report?.connected != true { state.report = report }
        }
    }
    func recordError(_ message: String) { state.withLock { $0.errors.append(message) } }
    var count: Int { state.withLock { $0.count } }
    var report: BotReport? { state.withLock { $0.report } }
    var errors: [String] { state.withLock { $0.errors } }
}

/// One answered offer: its connection (through the monitor) and local media.
final class ServerSession: WHIPEndpointSession {
    let number: Int
    let monitor: CallMonitor
    let media: CallMedia
    let sessions: SessionLog
    let recorder: MediaRecorder?

    init(number: Int, monitor: CallMonitor, media: CallMedia, sessions: SessionLog, recorder: MediaRecorder?) {
        self.number = number
        self.monitor = monitor
        self.media = media
        self.sessions = sessions
        self.recorder = recorder
    }

    /// The connection's state for the endpoint: connected, failed, or not yet (the
    /// endpoint ends a session that does not connect in time or fails).
    func connectionStates() async -> AsyncStream<WHIPSessionConnectionState> {
        let states = await monitor.connection.connectionStates()
        let (stream, continuation) = AsyncStream.makeStream(
            of: WHIPSessionConnectionState.self,
            bufferingPolicy: .bufferingNewest(8)
        )
        let follower = Task {
            for await state in states {
                switch state {
                case .connected: continuation.yield(.connected)
                case .failed: continuation.yield(.failed)
                case .closed: continuation.finish()
                case .new, .connecting, .disconnected: continuation.yield(.connecting)
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in follower.cancel() }
        return stream
    }

    func end() async {
        media.stop()
        if let recorder {
            do {
                for file in try await recorder.stop() { log("recorded \(file.path)") }
                if recorder.sizeLimitsReached > 0 {
                    log("session \(number): its recording stopped at --record-max-megabytes")
                }
            } catch {
                log("error: \(error)")
                monitor.recordError(error.description)
            }
        }
        let report = await monitor.finish()
        sessions.ended(report)
        log(
            "session \(number) ended: connected=\(report.connected), audio decoded \(report.audio.framesDecoded.map(String.init) ?? "null"), video decoded \(report.video.framesDecoded.map(String.init) ?? "null")"
        )
    }
}

extension BotReport.WhipEndpoint {
    init(_ stats: WHIPEndpoint.Stats) {
        self.init(
            sessionsCreated: stats.sessionsCreated,
            endedByClient: stats.endedByClient,
            timedOut: stats.timedOut,
            failed: stats.failed,
            rejectedSessionLimit: stats.rejectedSessionLimit,
            rejectedAddressLimit: stats.rejectedAddressLimit,
            unauthorized: stats.unauthorized,
            badRequests: stats.badRequests,
            answererErrors: stats.answererErrors
        )
    }
}
