import ArgumentParser
import Foundation
import SwiftRTC
import SwiftRTCSignalingServer
import Synchronization

/// `callbot whip-server --port P [--host ADDRESS]`: be a WHIP endpoint (RFC 9725) at
/// `http://ADDRESS:P/whip` (`https://` with `--tls-cert`/`--tls-key`; an address that is not
/// loopback needs them, or `--insecure`). Each POSTed offer gets a complete answer (all candidates); the
/// received media is echoed back, or the `--audio`/`--video` sources are sent instead. It is
/// a WHEP endpoint too, at `/whep`: each viewer is sent what the newest WHIP session receives.
/// `DELETE` on a session's Location ends that session; so does not connecting within
/// `--connect-timeout`, or failing. With a token (`--token`, `--token-file` or
/// `$SWIFTRTC_WHIP_TOKEN`) every request must carry it; `--max-sessions` and
/// `--max-sessions-per-address` bound what strangers can open.
struct WhipServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whip-server",
        abstract: "Be a WHIP endpoint (RFC 9725): answer offers, echo received media (or send sources), record.",
        discussion: """
            Prints READY <endpoint URL> and WHEP <URL> on standard output once it listens: a WHEP \
            viewer (callbot whep URL) that POSTs a receive-only offer to the WHEP URL is sent the \
            media of the newest WHIP session, decoded and encoded again for it. Its --ice-server \
            servers (with their credentials) are offered to clients in Link headers (RFC 9725 §4.6). \
            Runs until --duration \
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
        // Its own STUN and TURN servers, offered to its clients too (Link headers).
        configuration.iceServers = try ice.servers().map {
            WHIPICEServer(url: $0.description, username: $0.username, credential: $0.credential)
        }
        configuration.maxSessionDuration = Seconds.duration(maxSessionSeconds)
        let broadcast = Broadcast()
        let endpoint = WHIPEndpoint(configuration: configuration) { offer in
            try await Self.answer(offer, settings: settings, sessions: sessions, broadcast: broadcast)
        } whepAnswerer: { offer in
            try await Self.answer(viewer: offer, settings: settings, sessions: sessions, broadcast: broadcast)
        }
        log(configuration.description)
        // SIGTERM or SIGINT (or --duration) stops it taking offers and ends the sessions
        // (ServiceLifecycle); the report follows.
        do {
            try await ServerServices.run(
                {
                    try await endpoint.run { url in
                        var whep = URLComponents(url: url, resolvingAgainstBaseURL: false)
                        whep?.path = endpoint.configuration.whepPath
                        // One write: whoever has read READY can read WHEP.
                        printLine(
                            "READY \(url.absoluteString)\nWHEP \(whep?.url?.absoluteString ?? endpoint.configuration.whepPath)"
                        )
                    }
                },
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

    /// Answers one offer: a new PeerConnection, its media, the complete answer. What it
    /// receives goes on air for WHEP viewers (`broadcast`).
    static func answer(
        _ offer: String,
        settings: SessionSettings,
        sessions: SessionLog,
        broadcast: Broadcast
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
            let answer = try await negotiate(offer, on: connection) {
                try await Whip.addMedia(local.send, to: connection)
            }
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
                        base: SessionSettings.Recording.base("whip", at: Date()),
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
            let relay = await broadcast.putOnAir(session: number, receivedBy: connection)
            let session = ServerSession(
                number: number,
                monitor: monitor,
                media: local.send,
                sessions: sessions,
                recorder: recorder,
                relay: relay
            )
            sessions.answered()
            log("session \(number): answered")
            return (answer, session)
        } catch {
            log("session \(number): \(error)")
            local.send.stop()
            let report = await monitor.finish()
            // An offer refused as the client's fault is no session of this run.
            if !(error is WHIPOfferRejected) { sessions.ended(report) }
            throw error
        }
    }

    /// Answers a WHEP viewer's offer: a new PeerConnection that sends the broadcast's tracks.
    /// A viewer's session is counted (`viewers` of the report) but its report is not the run's.
    static func answer(
        viewer offer: String,
        settings: SessionSettings,
        sessions: SessionLog,
        broadcast: Broadcast
    ) async throws -> (answer: String, session: any WHIPEndpointSession) {
        let number = sessions.beginViewer()
        let connection = try PeerConnection(configuration: settings.configuration)
        let monitor = await CallMonitor(
            connection: connection,
            role: "whep-server",
            started: .now,
            statsInterval: settings.statsInterval,
            label: "[viewer \(number)]",
            statsJSON: settings.statsJSON
        )
        do {
            let answer = try await negotiate(offer, on: connection) {
                try await connection.addTrack(broadcast.audio)
                try await connection.addTrack(broadcast.video)
            }
            await monitor.startMedia(echo: nil)
            log("viewer \(number): answered")
            return (answer, ViewerSession(number: number, monitor: monitor))
        } catch {
            log("viewer \(number): \(error)")
            _ = await monitor.finish()
            throw error
        }
    }

    /// The offer/answer of one session: applies `offer`, adds the local tracks (`addMedia`),
    /// answers and gathers every candidate; the complete answer. An offer that is not SDP, or
    /// that nothing of can be taken, is a ``WHIPOfferRejected``.
    static func negotiate(
        _ offer: String,
        on connection: PeerConnection,
        addMedia: () async throws -> Void
    ) async throws -> String {
        do {
            try await connection.setRemoteDescription(SignalingDescription(type: .offer, sdp: offer))
        } catch {
            if case .invalidDescription = error { throw WHIPOfferRejected(error.description) }
            throw error
        }
        try await addMedia()
        let created = try await connection.createAnswer()
        if let unusable = Self.unusableOffer(offer, answer: created.sdp) {
            throw WHIPOfferRejected(unusable, kind: .unusable)
        }
        try await connection.setLocalDescription(created)
        guard await connection.gatheringComplete(within: gatheringTimeout) else {
            throw CallbotError("ICE gathering did not complete within \(gatheringTimeout)")
        }
        guard let answer = await connection.localDescription else { throw CallbotError("no local description") }
        return answer.sdp
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
    /// session, `whip-YYYYMMDD-HHMMSS.webm` from this side's clock (UTC, when it was answered;
    /// `callbot whep`'s `whep-...`), `-2`... when that name is taken (nothing from the offer or
    /// the peer goes into a name).
    struct Recording: Sendable {
        var folder: RecordingFolder

        init(_ record: String) throws {
            do { folder = try RecordingFolder(URL(fileURLWithPath: record)) } catch {
                throw CallbotError("--record \(record): \(error)")
            }
        }

        /// A session's file name without its extension: `prefix-YYYYMMDD-HHMMSS` at `date`.
        static func base(_ prefix: String, at date: Date) -> String {
            let format = DateFormatter()
            format.locale = Locale(identifier: "en_US_POSIX")
            format.timeZone = TimeZone(identifier: "UTC")
            format.dateFormat = "yyyyMMdd-HHmmss"
            return prefix + "-" + format.string(from: date)
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
        var viewers = 0
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
    /// Numbers a new WHEP viewer's offer (from 1).
    func beginViewer() -> Int {
        state.withLock {
            $0.viewers += 1
            return $0.viewers
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
final class ServerSession: PeerSession {
    let number: Int
    let monitor: CallMonitor
    let media: CallMedia
    let sessions: SessionLog
    let recorder: MediaRecorder?
    /// The tasks that put what it receives on air for WHEP viewers.
    let relay: [Task<Void, Never>]

    init(
        number: Int,
        monitor: CallMonitor,
        media: CallMedia,
        sessions: SessionLog,
        recorder: MediaRecorder?,
        relay: [Task<Void, Never>]
    ) {
        self.number = number
        self.monitor = monitor
        self.media = media
        self.sessions = sessions
        self.recorder = recorder
        self.relay = relay
    }

    func end() async {
        for task in relay { task.cancel() }
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
            viewerSessionsCreated: stats.viewerSessionsCreated,
            endedByClient: stats.endedByClient,
            timedOut: stats.timedOut,
            failed: stats.failed,
            rejectedSessionLimit: stats.rejectedSessionLimit,
            rejectedAddressLimit: stats.rejectedAddressLimit,
            unauthorized: stats.unauthorized,
            badRequests: stats.badRequests,
            answererErrors: stats.answererErrors,
            trickles: stats.trickles,
            iceRestarts: stats.iceRestarts
        )
    }
}

/// One WHEP viewer: a connection that sends the broadcast (which goes on when it ends).
final class ViewerSession: PeerSession {
    let number: Int
    let monitor: CallMonitor

    init(number: Int, monitor: CallMonitor) {
        self.number = number
        self.monitor = monitor
    }

    func end() async {
        let report = await monitor.finish()
        log("viewer \(number) ended: connected=\(report.connected)")
    }
}

/// What a `whip-server`'s WHEP viewers are sent: the media the newest WHIP session receives
/// (on air), decoded and pushed into two local tracks that every viewer's connection sends,
/// each encoding it for its own viewer. When that session ends the viewers get nothing more
/// until a new one is put on air.
final class Broadcast: Sendable {
    let audio = MediaStreamTrack(kind: .audio)
    let video = MediaStreamTrack(kind: .video)
    /// The number of the session on air.
    private let onAir = Atomic<Int>(0)

    /// Puts session `number` on air: each track `connection` receives is pushed into the
    /// broadcast's track of its kind while no newer session is on air. The tasks end with
    /// the received tracks; cancel them when the session ends.
    func putOnAir(session number: Int, receivedBy connection: PeerConnection) async -> [Task<Void, Never>] {
        onAir.store(number, ordering: .relaxed)
        var tasks: [Task<Void, Never>] = []
        for transceiver in await connection.transceivers where transceiver.kind == .audio || transceiver.kind == .video
        {
            let local = transceiver.kind == .audio ? audio : video
            let frames = transceiver.receiver.track.frames()
            tasks.append(
                Task {
                    for await frame in frames where self.onAir.load(ordering: .relaxed) == number { local.push(frame) }
                }
            )
        }
        return tasks
    }
}

/// A `whip-server` session on a peer connection (its monitor's): the connection's state, and
/// its `PATCH`es (trickled candidates, ICE restarts), for the endpoint.
protocol PeerSession: WHIPEndpointSession {
    var monitor: CallMonitor { get }
}

extension PeerSession {
    func connectionStates() async -> AsyncStream<WHIPSessionConnectionState> {
        await monitor.connection.whipConnectionStates()
    }

    func addCandidates(_ fragment: TrickleICEFragment) async throws {
        try await monitor.connection.addCandidates(fragment)
    }

    func restartICE(_ fragment: TrickleICEFragment) async throws -> TrickleICEFragment {
        try await monitor.connection.restartICE(answering: fragment, gatheringTimeout: WhipServer.gatheringTimeout)
    }
}

extension PeerConnection {
    /// The connection's state as a WHIP endpoint follows it: connected, failed, or not yet
    /// (the endpoint ends a session that does not connect in time or fails).
    func whipConnectionStates() -> AsyncStream<WHIPSessionConnectionState> {
        let states = connectionStates()
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
}
