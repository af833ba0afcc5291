import ArgumentParser
import Foundation
import SwiftRTC

/// `callbot whip URL`: dial a WHIP endpoint (RFC 9725) with audio and video (and a data
/// channel with `--data-channel`), print statsString every `--stats-interval`, `DELETE` the
/// session at the end and write the bot report.
struct Whip: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Dial a WHIP endpoint (RFC 9725): send audio and video, print stats, DELETE at the end.",
        discussion: """
            Gathers every ICE candidate first (--trickle sends the later ones with PATCH), POSTs the offer as \
            application/sdp (with the bearer token of --token, --token-file or \
            $SWIFTRTC_WHIP_TOKEN, if any; an https:// endpoint's certificate must verify against the \
            system's CA certificates or those of --ca-cert FILE), applies the 201 answer and sends media for --duration seconds once connected (as call \
            and answer do; with --data-channel, also until the echoes are in, 60 s at most) or until SIGINT/SIGTERM arrives, then DELETEs the session URL. Exits 0 when the call connected \
            without errors, 1 when it did not, 77 when the endpoint refused the token (401/403), 69 \
            when it could not be reached (the report is written either way). When the connection \
            has been down for 5 s, ICE is restarted with a PATCH (RFC 9725 §4.3.2), again every 5 s \
            until it is back. Without --ice-server, the STUN and TURN servers the endpoint offers in \
            Link headers (its reply to OPTIONS, RFC 9725 §4.6) are used.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var statsOutput: StatsOptions
    @OptionGroup var prometheus: MetricsOptions

    @Argument(help: ArgumentHelp("The WHIP endpoint URL (http:// or https://).", valueName: "URL"))
    var url: String

    @OptionGroup var media: MediaOptions
    @OptionGroup var data: DataChannelOptions
    @OptionGroup var ice: IceOptions
    @OptionGroup var bandwidth: BandwidthOptions
    @OptionGroup var options: RunOptions
    @OptionGroup var token: WhipTokenOptions
    @OptionGroup var tls: TLSClientOptions
    @OptionGroup var eventLines: EventsOptions

    @Flag(
        help: """
            POST the offer at once and send the candidates gathered after it with PATCH (trickle ICE, \
            RFC 9725 §4.3); an endpoint that takes no PATCH gets only the offer's.
            """
    )
    var trickle = false

    /// How long the HTTP requests, gathering and connecting may take.
    static let httpTimeout = Duration.seconds(30)
    static let gatheringTimeout = Duration.seconds(10)
    static let connectTimeout = Duration.seconds(30)
    /// How long `--data-channel` waits for its echoes (the call lasts at least `--duration`).
    static let dataTimeout = Duration.seconds(60)

    func validate() throws {
        guard let endpoint = URL(string: url), let scheme = endpoint.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            let host = endpoint.host, !host.isEmpty
        else {
            throw ValidationError("'\(url)' is not a WHIP endpoint URL (expected http://HOST[:PORT]/PATH)")
        }
        if media.noAudio && media.noVideo && data.dataChannel == nil {
            throw ValidationError("--no-audio and --no-video together leave nothing to send (add --data-channel LABEL)")
        }
    }

    func run() async throws {
        global.apply()
        let metricsServer = try await prometheus.start()
        defer { metricsServer?.cancel() }
        let signals = TerminationSignals()
        guard let endpoint = URL(string: url) else { throw ExitCode.validationFailure }
        let started = ContinuousClock.now
        let (client, configuration) = try await Self.prepare(endpoint, token: token, tls: tls, ice: ice)
        let connection = try PeerConnection(configuration: bandwidth.apply(to: configuration))
        let monitor = await CallMonitor(
            connection: connection,
            role: "whip-client",
            started: started,
            statsInterval: .seconds(options.statsInterval),
            label: "",
            statsJSON: statsOutput.statsJSON
        )
        let local = CallMedia.make(
            audio: media.noAudio ? nil : media.audio ?? .tone,
            video: media.noVideo ? nil : media.video ?? .pattern
        )
        defer { local.stop() }
        var whip: WHIPConnection?
        var failure = CallbotExit.failed
        do {
            // With neither audio nor video: a data-only connection (the data channel alone).
            if !(media.noAudio && media.noVideo) { try await Self.addMedia(local, to: connection) }
            let channelCreated = ContinuousClock.now
            var channel: DataChannel?
            if let plan = data.exercise {
                channel = try await connection.createDataChannel(label: plan.label, options: plan.options)
            }
            let published = try await Self.open(connection, client: client, trickle: trickle)
            whip = published
            event(["event": "published", "session": await published.session.location.absoluteString])
            await monitor.startMedia(echo: nil)
            if await monitor.waitConnected(timeout: Self.connectTimeout) {
                await hold(
                    connection,
                    media: local,
                    channel: channel,
                    created: channelCreated,
                    started: started,
                    monitor: monitor,
                    signals: signals
                )
            } else if signals.signal == nil {
                monitor.recordError("not connected within \(Self.connectTimeout)")
                event(["event": "connection_failed", "reason": "not connected within \(Self.connectTimeout)"])
            }
        } catch {
            Whip.record(error, on: monitor, tls: tls, events: eventLines)
            if whip == nil { failure = CallbotExit.code(forPublishing: error) }
        }
        // As the harness peers do: final stats, close, then DELETE.
        var report = await monitor.finish()
        if let whip { await Self.end(whip, into: &report) }
        event(["event": "ended", "connected": report.connected, "errors": report.errors.count])
        try report.finish(writingTo: options.report, failure: failure)
    }

    /// Once connected: starts the media, says so, and holds the call for `--duration` (with
    /// `--data-channel`, until the echoes are in too) or until SIGINT or SIGTERM.
    private func hold(
        _ connection: PeerConnection,
        media local: CallMedia,
        channel: DataChannel?,
        created channelCreated: ContinuousClock.Instant,
        started: ContinuousClock.Instant,
        monitor: CallMonitor,
        signals: TerminationSignals
    ) async {
        local.start()
        event(["event": "connected", "ms": CallMonitor.milliseconds(ContinuousClock.now - started)])
        let report = await connection.stats()
        log(
            "connected in \(CallMonitor.milliseconds(ContinuousClock.now - started)) ms (\(report.first(.localCandidate)?.string("candidateType") ?? "?") -> \(report.first(.remoteCandidate)?.string("candidateType") ?? "?"))"
        )
        // --duration counts from here: a slow connection (a loaded machine, a TURN
        // server far off) does not eat the call it asked for.
        let end = options.duration.map { ContinuousClock.now + .seconds($0) }
        if let plan = data.exercise, let channel {
            // The echoes have their own bound, whatever --duration says: a peer that
            // recovers a loss with its retransmission timeout (1 s at least, doubling;
            // a slow peer's socket overflows under load) still gets its messages counted.
            // The run ends once they are in and --duration has passed.
            // SIGINT or SIGTERM ends it too.
            let deadline = ContinuousClock.now + Self.dataTimeout
            let exercise = Task {
                await DataChannelExercise.run(plan, on: channel, created: channelCreated, deadline: deadline)
            }
            let interrupt = Task {
                await signals.wait(upTo: nil)
                exercise.cancel()
            }
            let (row, errors) = await exercise.value
            interrupt.cancel()
            monitor.record(row)
            for error in errors { monitor.recordError(error) }
            log("data channel \(plan.label): \(row.messagesReceived) of \(row.messagesSent) echoed")
            if let end { await signals.wait(upTo: max(.zero, end - ContinuousClock.now)) }
        } else {
            await signals.wait(upTo: end.map { max(.zero, $0 - ContinuousClock.now) })
        }
    }

    /// An `EVENT` line, with `--events-json`.
    private func event(_ fields: [String: any Sendable]) {
        if eventLines.eventsJSON { EventLine.print(fields) }
    }

    /// What a WHIP or WHEP client run starts from: the client of `endpoint` (its token, whom
    /// its certificate must chain to) and the connection's configuration (the ICE servers of
    /// `--ice-server` or the endpoint's, host candidates where the endpoint can be reached).
    static func prepare(
        _ endpoint: URL,
        token: WhipTokenOptions,
        tls: TLSClientOptions,
        ice: IceOptions
    ) async throws -> (client: WHIPClient, configuration: PeerConnection.Configuration) {
        let bearerToken = try token.value()
        if bearerToken != nil { CleartextWarning.check([endpoint], sending: "the bearer token") }
        let client = WHIPClient(
            endpoint: endpoint,
            bearerToken: bearerToken,
            timeout: httpTimeout,
            trust: try tls.trust()
        )
        let configuration = PeerConnection.Configuration(
            iceServers: try await iceServers(ice, client: client),
            iceTransportPolicy: ice.relayOnly ? .relay : .all,
            gatherAddresses: PeerConnection.Configuration.gatherAddresses(toReach: endpoint.host ?? "")
        )
        return (client, configuration)
    }

    /// The ICE servers of `--ice-server`; without any, those the endpoint offers in `Link`
    /// headers (RFC 9725 §4.6, asked with `OPTIONS`; none if it offers none or cannot say).
    static func iceServers(_ ice: IceOptions, client: WHIPClient) async throws -> [IceServer] {
        let given = try ice.servers()
        guard given.isEmpty else { return given }
        let offered: [WHIPICEServer]
        do { offered = try await client.iceServers() } catch {
            log("no ICE servers from the endpoint: \(error)")
            return []
        }
        var servers: [IceServer] = []
        for server in offered {
            do {
                servers.append(try IceServer(url: server.url, username: server.username, credential: server.credential))
            } catch {
                log("the endpoint's ICE server is not usable: \(error)")
            }
        }
        if !servers.isEmpty {
            log("ICE servers from the endpoint: \(servers.map(\.description).joined(separator: ", "))")
        }
        return servers
    }

    /// Opens a WHIP (or WHEP) session for `connection` (``WHIPConnection``: every candidate in
    /// the offer, or with `trickle` the rest in `PATCH`es; ICE restarted 5 s into an outage)
    /// and logs what it does on its own.
    static func open(
        _ connection: PeerConnection,
        client: WHIPClient,
        trickle: Bool,
        protocolName: String = "WHIP"
    ) async throws -> WHIPConnection {
        var options = WHIPConnection.Options()
        options.trickle = trickle
        options.gatheringTimeout = gatheringTimeout
        let whip = try await WHIPConnection(connection, client: client, options: options)
        let events = await whip.events()
        Task {
            for await event in events {
                switch event {
                case let .trickled(candidates, stopped):
                    log(
                        "trickled \(candidates) candidate(s) after the offer\(stopped.map { " (stopped: \($0))" } ?? "")"
                    )
                case .iceRestarted: log("ICE restarted")
                case let .iceRestartFailed(reason): log("ICE restart failed: \(reason)")
                }
            }
        }
        log("\(protocolName) session \(await whip.session.location.absoluteString)")
        return whip
    }

    /// Records the error a WHIP or WHEP run stopped on: in the report, logged (with the TLS
    /// hint when the endpoint's certificate did not verify) and as an event.
    static func record(_ error: any Error, on monitor: CallMonitor, tls: TLSClientOptions, events: EventsOptions) {
        let hint = if case WHIPError.tls = error { tls.hint } else { "" }
        monitor.recordError("\(error)\(hint)")
        log("error: \(error)\(hint)")
        if events.eventsJSON { EventLine.print(["event": "error", "reason": "\(error)"]) }
    }

    /// Ends `whip`'s session (`DELETE`), a failure one of `report`'s errors.
    static func end(_ whip: WHIPConnection, into report: inout BotReport) async {
        do { try await whip.end() } catch {
            report.errors.append("\(error)")
            log("error: \(error)")
        }
    }

    /// Adds each local track; a kind that is not sent is still received (`recvonly`).
    static func addMedia(_ media: CallMedia, to connection: PeerConnection) async throws {
        if let audio = media.audio {
            try await connection.addTrack(audio)
        } else {
            try await connection.addTransceiver(.audio, direction: .recvonly)
        }
        if let video = media.video {
            try await connection.addTrack(video)
        } else {
            try await connection.addTransceiver(.video, direction: .recvonly)
        }
    }
}

/// A failed step of a callbot run, in words.
struct CallbotError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A line on standard output, written at once (no buffering: READY and the stats must show
/// while the run goes on).
func printLine(_ text: String) {
    FileHandle.standardOutput.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
}

/// A progress line on standard error (standard output carries the stats and READY lines).
func log(_ message: String) {
    FileHandle.standardError.write(Data("callbot: \(message)\n".utf8))
}
