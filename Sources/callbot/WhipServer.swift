import ArgumentParser
import Foundation
import SwiftRTC
import SwiftRTCSignalingServer

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
        let settings = try sessionSettings()
        let configuration = try endpointConfiguration()
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
        try writeReport(sessions: sessions, counters: endpoint.stats, started: started)
    }

    /// What every session of this run sends and records, from the command line.
    func sessionSettings() throws -> SessionSettings {
        SessionSettings(
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
    }

    /// The endpoint's configuration, from the command line: where it listens, its token,
    /// limits and TLS identity, and the ICE servers it offers its clients.
    func endpointConfiguration() throws -> WHIPEndpoint.Configuration {
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
        return configuration
    }

    /// Logs the endpoint's counters and writes the run's report: that of the last session
    /// that ended, with the number of sessions, the counters and the run's errors.
    func writeReport(sessions: SessionLog, counters: WHIPEndpoint.Stats, started: ContinuousClock.Instant) throws {
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
