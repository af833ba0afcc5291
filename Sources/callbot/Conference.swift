import ArgumentParser
import Foundation
import SwiftRTC

/// `callbot conference --janus URL --room N`: join a room of Janus's VideoRoom as a publisher
/// (send audio and video, receive every other publisher) or a listener (receive only), print
/// the stats every `--stats-interval`, and report what each publisher's streams delivered.
struct Conference: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join a conference room on Janus (VideoRoom): publish and receive every publisher.",
        discussion: """
            Joins room N of the Janus at --janus (its WebSocket API, ws:// or wss://) with \
            --display NAME. --publish (the default) sends audio and video and subscribes to every \
            other publisher, as a participant does; --listen only subscribes. Runs until --duration \
            ends or SIGINT/SIGTERM arrives, then leaves the room; when Janus ends the session (a \
            restart) it joins again while time is left ("rejoins" in the report). --simulcast publishes the \
            video in three sizes (rids h, m, l); --layer N chooses which of them Janus forwards from each \
            publisher that sends several and --temporal T how many of its frames (each simulcast encoding \
            has three temporal layers), and each change is printed ("conference: layer NAME: substream N, temporal T"). \
            With --record DIR each publisher \
            received is recorded into a WebM file of its own. With --chat each line of standard input \
            goes to the room on the bot's data channel and what the others send is printed. The \
            report has one row per publisher subscribed to ("publishers": id, display, audio and \
            video frames decoded, packets lost, data messages received, the simulcast layer received). Exits 0 when the bot joined and its connections connected without \
            errors, 1 when not, 69 when Janus could not be reached.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("Janus's WebSocket URL.", valueName: "ws://HOST:8188"))
    var janus: String

    @Option(help: ArgumentHelp("The room's number.", valueName: "N"))
    var room: Int64

    @Option(help: ArgumentHelp("The name the room shows for the bot.", valueName: "NAME"))
    var display: String = "callbot"

    @Flag(help: "Publish audio and video and receive the others (the default), or only receive.")
    var mode: Mode = .publish

    enum Mode: String, EnumerableFlag {
        case publish, listen
    }

    var role: ConferenceRole { mode == .publish ? .publisher : .listener }

    @Flag(help: "Create the room when it does not exist.")
    var createRoom = false

    @Flag(help: "Publish video as simulcast: three encodings (full, half and quarter size) with rids h, m, l.")
    var simulcast = false

    @Option(
        help: ArgumentHelp(
            "The simulcast layer to receive of publishers that send several: 0 (smallest) to 2 (largest, Janus's default).",
            valueName: "N"
        )
    )
    var layer: Int?

    @Option(
        help: ArgumentHelp(
            "The temporal layer to receive of publishers whose video has several: 0 (a quarter of the frames), 1 (half) or 2 (all, Janus's default).",
            valueName: "T"
        )
    )
    var temporal: Int?

    @Option(
        help: ArgumentHelp(
            "Record each publisher received into a WebM file of its own in DIR (<display>-<id>.webm).",
            valueName: "DIR"
        )
    )
    var record: String?

    @OptionGroup var media: MediaOptions
    @OptionGroup var chat: ChatOptions
    @OptionGroup var ice: IceOptions
    @OptionGroup var options: RunOptions
    @OptionGroup var tls: TLSClientOptions

    /// How long joining and connecting may take.
    static let connectTimeout = Duration.seconds(30)

    func validate() throws {
        guard WebSocketURL.parse(janus) != nil else {
            throw ValidationError("'\(janus)' is not a Janus WebSocket URL (expected ws://HOST:PORT)")
        }
        guard room > 0 else { throw ValidationError("--room must be a positive number") }
        if role == .publisher && media.noAudio && media.noVideo {
            throw ValidationError("--no-audio and --no-video leave a publisher nothing to send (use --listen)")
        }
        if let record {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: record, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw ValidationError("--record \(record): no such folder")
            }
        }
        if let layer, !(0...2).contains(layer) { throw ValidationError("--layer must be 0, 1 or 2") }
        if let temporal, !(0...2).contains(temporal) { throw ValidationError("--temporal must be 0, 1 or 2") }
        if simulcast && (role == .listener || media.noVideo) {
            throw ValidationError("--simulcast sends video: it needs --publish and video")
        }
        if role == .listener && (media.audio != nil || media.video != nil) {
            throw ValidationError("--listen sends nothing: --audio and --video need --publish")
        }
    }

    func run() async throws {
        global.apply()
        let signals = TerminationSignals()
        guard let url = URL(string: janus) else { throw ExitCode.validationFailure }
        let started = ContinuousClock.now
        let end = options.duration.map { started + .seconds($0) }
        var configuration = JanusSession.Configuration(url: url)
        configuration.trust = try tls.trust()
        var joinOptions = ConferenceSession.Options()
        joinOptions.display = display
        joinOptions.role = role
        joinOptions.audio = !media.noAudio
        joinOptions.video = !media.noVideo
        joinOptions.createsRoom = createRoom
        joinOptions.simulcast = simulcast
        joinOptions.substream = layer
        joinOptions.temporal = temporal
        joinOptions.data = chat.enabled
        joinOptions.recording = try record.map { try RecordingFolder(URL(fileURLWithPath: $0)) }
        joinOptions.connection = PeerConnection.Configuration(
            iceServers: try ice.servers(),
            iceTransportPolicy: ice.relayOnly ? .relay : .all,
            gatherAddresses: PeerConnection.Configuration.gatherAddresses(toReach: url.host ?? "")
        )
        var report: BotReport?
        var rejoins = 0
        let chatInput = chat.input()
        while true {
            let stay = await attend(
                configuration,
                joinOptions,
                chat: chatInput,
                started: started,
                end: end,
                signals: signals,
                retrying: report != nil
            )
            guard report != nil || stay.reachable else {
                try stay.report.finish(writingTo: options.report, failure: CallbotExit.unreachable)
                return
            }
            report = report.map { $0.adding(stay.report) } ?? stay.report
            // Janus ended the session (a restart, a timeout): join again while time is left.
            guard let reason = stay.endedByJanus, signals.signal == nil, end.map({ ContinuousClock.now < $0 }) ?? true
            else { break }
            rejoins += 1
            log("joining room \(room) again after: \(reason)")
        }
        guard var report else { return }
        report.rejoins = rejoins
        report.durationMs = CallMonitor.milliseconds(ContinuousClock.now - started)
        try report.finish(writingTo: options.report)
    }

    /// One stay in the room: connect (`retrying` every half second until `end`, while Janus
    /// restarts), join, publish, and run until `end`, a signal, or Janus ending the session.
    func attend(
        _ configuration: JanusSession.Configuration,
        _ joinOptions: ConferenceSession.Options,
        chat: ChatInput?,
        started: ContinuousClock.Instant,
        end: ContinuousClock.Instant?,
        signals: TerminationSignals,
        retrying: Bool
    ) async -> (report: BotReport, reachable: Bool, endedByJanus: String?) {
        var report = BotReport(role: "conference-\(role.rawValue)")
        let janusSession: JanusSession
        do {
            janusSession = try await Self.connect(configuration, retryingUntil: retrying ? end : nil, signals: signals)
        } catch {
            log("error: \(error)\(tls.hint)")
            report.errors.append("\(error)")
            return (report, false, nil)
        }
        let session: ConferenceSession
        do { session = try await ConferenceSession.join(janusSession, room: room, options: joinOptions) } catch {
            log("error: \(error)")
            report.errors.append("\(error)")
            await janusSession.destroy()
            return (report, true, nil)
        }
        log("joined room \(room) as \(session.id) (\(role.rawValue))")
        let monitor = ConferenceMonitor(
            session: session,
            statsInterval: .seconds(options.statsInterval),
            printsChat: chat != nil
        )
        await chat?.attach(session)
        let local = CallMedia.make(
            audio: session.localAudioTrack == nil ? nil : media.audio ?? .tone,
            video: session.localVideoTrack == nil ? nil : media.video ?? .pattern,
            audioTrack: session.localAudioTrack,
            videoTrack: session.localVideoTrack
        )
        defer { local.stop() }
        if let connection = await session.publishingConnection {
            if await Self.connected(connection, timeout: Self.connectTimeout) {
                local.start()
                log("publishing in \(CallMonitor.milliseconds(ContinuousClock.now - started)) ms")
            } else {
                report.errors.append("the publishing connection did not connect within \(Self.connectTimeout)")
            }
        }
        while signals.signal == nil, monitor.endedByJanus == nil {
            let left = end.map { $0 - ContinuousClock.now }
            if let left, left <= .zero { break }
            await signals.wait(upTo: min(left ?? .milliseconds(200), .milliseconds(200)))
        }
        let endedByJanus = monitor.endedByJanus
        await chat?.detach(session)
        await monitor.finish(into: &report)
        await janusSession.destroy()
        return (report, true, endedByJanus)
    }

    /// A session with Janus; with `retryingUntil`, failures are tried again every half second
    /// until then (Janus restarting).
    static func connect(
        _ configuration: JanusSession.Configuration,
        retryingUntil deadline: ContinuousClock.Instant?,
        signals: TerminationSignals
    ) async throws(JanusError) -> JanusSession {
        while true {
            do { return try await JanusSession.connect(configuration) } catch {
                guard let deadline, ContinuousClock.now < deadline, signals.signal == nil else { throw error }
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// Waits for `connection` to connect (true), fail, or `timeout` (false).
    static func connected(_ connection: PeerConnection, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            switch await connection.connectionState {
            case .connected: return true
            case .failed, .closed: return false
            default: try? await Task.sleep(for: .milliseconds(20))
            }
        }
        return false
    }
}
