import ArgumentParser
import Foundation
import SwiftRTC
import Synchronization

/// `callbot load --server URL --tokens-file FILE --bots N`: a load generator. N bots in this
/// process log in to one or more signaling servers and call each other in pairs (or meshes of
/// 3 or 4) with real media, hold each call for `--duration`, and write one JSON report
/// (``LoadReport``) of what connected, how fast, what was lost and decoded, and what it cost.
struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load test signaling servers: N bots calling each other with real media, one JSON report.",
        discussion: """
            The bots are the logins of --tokens-file (the server's USER:TOKEN file), --users-file \
            (USER:PASSWORD lines, for a server with a --users file: each login then costs the server \
            a PBKDF2 check) or repeated --token, the first --bots of them. Bot i logs in to the \
            --server given (i mod count)-th, so repeating --server spreads the bots over instances; \
            when its connection drops it logs in again to the next. \
            Bots are grouped in order: the first of each group calls the others; the call starts are \
            spread evenly over --ramp seconds. Each bot sends a 440 Hz tone (Opus, 20 ms, encoded once for all) and, with \
            --video, a 160x120 test pattern (VP8, 15 fps), and decodes the audio it receives. A call \
            is connected when every member's media is up with every other member; it is held \
            --duration seconds, then the counters are taken and everyone hangs up.

            The server must let this many connections in from one address: start it with \
            `callbot serve --max-connections-per-address N` (default 32) and, beyond 1000 bots, \
            --max-connections N.

            Prints a progress line on standard error every --progress-interval seconds, one \
            summary line (load: ...) on standard output at the end, and writes --report FILE as JSON: bots, group_size, \
            servers, audio_only; calls_attempted, calls_connected, calls_failed, calls_decoded_audio \
            and failures (reason: count); login_ms and setup_ms (call request to connected: p50, p95, \
            p99, max); packets_sent, packets_received, packets_lost, loss_fraction; \
            audio_frames_decoded, video_frames_decoded; cpu_seconds and cpu_seconds_per_call \
            (getrusage, whole process); peak_rss_mb (VmHWM), baseline_rss_mb, rss_mb_per_call; \
            peak_open_files, open_file_limit; call_duration_s, ramp_s, wall_s. Exits 0 only when \
            every call connected and every member decoded audio from every other, 1 otherwise.

            With --janus URL --room N --bots K it fills a conference room of Janus instead: K \
            publishers, each on a Janus session of its own, send a tone (and with --video a \
            160x120 pattern at 15 fps) and receive every other; after --ramp and --duration one \
            JSON line (and --report FILE): room, bots, joined, join_ms, failures, streams_expected, \
            streams_decoding, audio_frames_decoded, video_frames_decoded, packets_lost, \
            cpu_seconds, peak_rss_mb, rss_mb_per_bot, wall_s. Exits 0 only when every bot joined \
            and decoded every other.
            """
    )

    /// The most bots one process runs.
    static let maxBots = 5000
    /// The most server URLs.
    static let maxServers = 64
    /// Descriptors a process needs besides the bots', and each bot's: its WebSocket, and per
    /// connection the ICE sockets, the DTLS and GLib wake-ups (measured: see the report's
    /// `peak_open_files`).
    static let baseFiles = 64, filesPerBot = 1, filesPerConnection = 4

    enum Media: String, EnumerableFlag {
        case audioOnly, video

        static func help(for value: Media) -> ArgumentHelp? {
            switch value {
            case .audioOnly: "Audio only: Opus, 20 ms frames, both ways."
            case .video: "Audio and video: VP8 at 160x120, 15 fps, besides the audio."
            }
        }
    }

    @Option(
        name: .customLong("server"),
        help: ArgumentHelp(
            "A signaling server's WebSocket URL (ws://HOST:PORT/signaling or wss://); repeat it to spread the bots over instances (at most \(maxServers)).",
            valueName: "URL"
        )
    )
    var servers: [String] = []

    @Option(
        help: ArgumentHelp(
            "Fill a conference room of this Janus (its WebSocket API) instead: --room N, --bots K publishers that each receive every other; one JSON line.",
            valueName: "URL"
        )
    )
    var janus: String?

    @Option(
        help: ArgumentHelp("The Janus room the bots fill (with --janus; made if it does not exist).", valueName: "N")
    )
    var room: Int64?

    @Option(
        help: ArgumentHelp(
            "The server's tokens file (USER:TOKEN lines): bot i logs in with the i-th token.",
            valueName: "FILE"
        )
    )
    var tokensFile: String?

    @Option(
        help: ArgumentHelp(
            "USER:PASSWORD lines (plain passwords of the server's --users file): bot i logs in as the i-th.",
            valueName: "FILE"
        )
    )
    var usersFile: String?

    @Option(
        name: .customLong("token"),
        help: ArgumentHelp(
            "A login token (or USER:PASSWORD) of one bot; repeatable. Better for many: --tokens-file.",
            valueName: "T"
        )
    )
    var tokens: [String] = []

    @Option(
        help: ArgumentHelp(
            "How many bots: the first N logins (default: every login given; at most \(maxBots)). Bots that do not fill a last group stay out.",
            valueName: "N"
        )
    )
    var bots: Int?

    @Option(
        help: ArgumentHelp("Bots per call: 2 (pairs) or 3 to 4 (meshes: the first calls the others).", valueName: "N")
    )
    var groupSize = 2

    @Option(
        help: ArgumentHelp("Seconds each call is held once connected; then the caller hangs up.", valueName: "SECONDS")
    )
    var duration: Double = 20

    @Option(
        help: ArgumentHelp(
            "Spread the call starts (logins and call requests) evenly over this many seconds (0: all at once).",
            valueName: "SECONDS"
        )
    )
    var ramp: Double = 5

    @Option(
        help: ArgumentHelp(
            "Seconds from a call request to every member's media connected before the call counts as failed (at least 1; the answer timeout is at least 10).",
            valueName: "SECONDS"
        )
    )
    var setupTimeout: Double = 30

    @Option(
        help: ArgumentHelp(
            "Seconds a bot's login (WebSocket to welcome) may take, retries of a server busy for now (429: try again later) included.",
            valueName: "SECONDS"
        )
    )
    var loginTimeout: Double = 20

    @Flag var media: Media = .audioOnly

    @Option(
        help: ArgumentHelp(
            "Print a progress line on standard error every SECONDS (bots logged in, calls up and ended, loss).",
            valueName: "SECONDS"
        )
    )
    var progressInterval: Double = 5

    @Option(help: ArgumentHelp("Write the report (JSON) to FILE at the end.", valueName: "FILE"))
    var report: String?

    @OptionGroup var tls: TLSClientOptions
    @OptionGroup var prometheus: MetricsOptions

    @Option(
        help:
            "How much to log: nothing (the default: the report says what failed), basic (every call's milestones: a lot with many bots) or verbose."
    )
    var logLevel: LogLevel = .nothing

    func validate() throws {
        if let janus {
            guard WebSocketURL.parse(janus) != nil else {
                throw ValidationError("--janus '\(janus)' is not a WebSocket URL (expected ws://HOST:8188)")
            }
            guard servers.isEmpty, tokensFile == nil, usersFile == nil, tokens.isEmpty else {
                throw ValidationError("--janus fills a Janus room: no --server and no logins")
            }
            guard let room, room > 0 else { throw ValidationError("--janus needs the room: --room N (positive)") }
            guard let bots, (2...ConferenceLoad.maxBots).contains(bots) else {
                throw ValidationError("--janus needs --bots 2 to \(ConferenceLoad.maxBots)")
            }
            try Seconds.check(duration, "--duration")
            try Seconds.check(ramp, "--ramp", above: 0, orEqual: true)
            try ReportPath.check(report)
            return
        }
        if room != nil { throw ValidationError("--room is a Janus room: add --janus URL") }
        guard !servers.isEmpty else { throw ValidationError("give the signaling server: --server URL (repeatable)") }
        guard servers.count <= Self.maxServers else {
            throw ValidationError("at most \(Self.maxServers) --server URLs, not \(servers.count)")
        }
        for server in servers where WebSocketURL.parse(server) == nil {
            throw ValidationError(
                "--server '\(server)' is not a WebSocket URL (expected ws://HOST:PORT/signaling or wss://...)"
            )
        }
        guard [tokensFile != nil, usersFile != nil, !tokens.isEmpty].filter({ $0 }).count == 1 else {
            throw ValidationError(
                "give the bots' logins: one of --tokens-file FILE, --users-file FILE or --token T (repeated)"
            )
        }
        guard (2...4).contains(groupSize) else {
            throw ValidationError("--group-size must be 2 to 4, not \(groupSize)")
        }
        if let bots {
            guard (groupSize...Self.maxBots).contains(bots) else {
                throw ValidationError("--bots must be \(groupSize) (the group size) to \(Self.maxBots), not \(bots)")
            }
        }
        try Seconds.check(duration, "--duration")
        try Seconds.check(ramp, "--ramp", above: 0, orEqual: true)
        try Seconds.check(setupTimeout, "--setup-timeout", above: 1, orEqual: true)
        try Seconds.check(loginTimeout, "--login-timeout", above: 1, orEqual: true)
        try ReportPath.check(report)
        try Seconds.check(progressInterval, "--progress-interval")
        _ = try logins()
    }

    /// The bots' logins: the first `--bots` of those given, whole groups only.
    func logins() throws -> [LoadLogin] {
        let all: [LoadLogin]
        if let tokensFile {
            all = try LoadLogins.read(tokensFile: tokensFile)
        } else if let usersFile {
            all = try LoadLogins.read(usersFile: usersFile)
        } else {
            all = try LoadLogins.tokens(tokens)
        }
        let wanted = bots ?? min(all.count, Self.maxBots)
        guard wanted <= all.count else { throw ValidationError("--bots \(wanted): only \(all.count) logins given") }
        guard wanted >= groupSize else { throw ValidationError("\(wanted) logins cannot make a group of \(groupSize)") }
        return Array(all.prefix(wanted - wanted % groupSize))
    }

    /// Descriptors `bots` bots in groups of `groupSize` need, about.
    static func filesNeeded(bots: Int, groupSize: Int) -> Int {
        baseFiles + bots * (filesPerBot + (groupSize - 1) * filesPerConnection)
    }

    func run() async throws {
        SwiftRTCLogging.level = logLevel
        let metricsServer = try await prometheus.start()
        defer { metricsServer?.cancel() }
        if let janus, let url = WebSocketURL.parse(janus), let room, let bots {
            try await fill(room: room, of: url, bots: bots)
            return
        }
        let logins = try logins()
        let urls = servers.compactMap(WebSocketURL.parse)
        CleartextWarning.check(urls, sending: "the bots' login tokens")
        let fileLimit = try raiseOpenFileLimit(bots: logins.count)
        let settings = LoadCallSettings(
            video: media == .video,
            duration: Seconds.duration(duration),
            setupTimeout: Seconds.duration(setupTimeout),
            loginTimeout: Seconds.duration(loginTimeout),
            trust: try tls.trust()
        )
        let groups = loadCalls(of: logins, on: urls, settings: settings)
        let baseline = ProcessResources.residentBytes()
        let signals = TerminationSignals()
        let started = ContinuousClock.now
        let peakFiles = Atomic<Int>(OpenFiles.count)
        let sampler = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                peakFiles.max(OpenFiles.count, ordering: .relaxed)
            }
        }
        let progressLines = printProgress(settings: settings, started: started, bots: logins.count, calls: groups.count)
        let running = Self.start(groups, rampedOver: Seconds.duration(ramp), from: started)
        // SIGINT/SIGTERM ends the calls early; the report is still written.
        let stopper = Task {
            await signals.wait(upTo: nil)
            if signals.signal != nil { running.cancel() }
        }
        let results = await running.value
        stopper.cancel()
        sampler.cancel()
        progressLines.cancel()
        peakFiles.max(OpenFiles.count, ordering: .relaxed)

        let report = makeReport(
            results: results,
            bots: logins.count,
            servers: urls.count,
            baseline: baseline,
            peakOpenFiles: { peakFiles.load(ordering: .relaxed) },
            openFileLimit: fileLimit,
            started: started
        )
        try finish(report)
    }

    /// The calls of the run: `logins` in groups of `--group-size`, each bot on its own server
    /// first (bot i on the (i mod count)-th), then the others in order.
    func loadCalls(of logins: [LoadLogin], on urls: [URL], settings: LoadCallSettings) -> [LoadCall] {
        stride(from: 0, to: logins.count, by: groupSize).map { first in
            LoadCall(
                members: (first..<first + groupSize).map {
                    (logins[$0], Array(urls[($0 % urls.count)...] + urls[..<($0 % urls.count)]))
                },
                settings: settings
            )
        }
    }

    /// Raises the open-file limit as far as it goes and returns it; throws when `bots` bots
    /// would need more descriptors than that.
    func raiseOpenFileLimit(bots: Int) throws -> Int {
        let fileLimit = OpenFiles.raiseLimit()
        let needed = Self.filesNeeded(bots: bots, groupSize: groupSize)
        guard needed <= fileLimit else {
            throw CallbotError(
                "\(bots) bots in groups of \(groupSize) need about \(needed) open files, and this process may open "
                    + "\(fileLimit) (the hard limit, `ulimit -Hn`): raise it, or run fewer bots per process"
            )
        }
        return fileLimit
    }

    /// Prints a progress line on standard error every `--progress-interval` until cancelled.
    func printProgress(
        settings: LoadCallSettings,
        started: ContinuousClock.Instant,
        bots: Int,
        calls: Int
    ) -> Task<Void, Never> {
        Task { [progressInterval, settings] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Seconds.duration(progressInterval))
                guard !Task.isCancelled else { return }
                FileHandle.standardError.write(
                    Data(
                        (settings.progress.line(
                            elapsed: ContinuousClock.now - started,
                            bots: bots,
                            calls: calls
                        ) + "\n").utf8
                    )
                )
            }
        }
    }

    /// Runs `groups`, their starts spread evenly over `ramp` from `started`; the results of
    /// the calls (a call not started when cancelled counts as such).
    static func start(
        _ groups: [LoadCall],
        rampedOver rampDuration: Duration,
        from started: ContinuousClock.Instant
    ) -> Task<[LoadCallResult], Never> {
        Task {
            await withTaskGroup(of: LoadCallResult.self) { group in
                for (index, call) in groups.enumerated() {
                    let offset = rampDuration * (Double(index) / Double(groups.count))
                    group.addTask {
                        try? await Task.sleep(until: started + offset)
                        guard !Task.isCancelled else { return LoadCallResult(failure: "not started (interrupted)") }
                        return await call.run()
                    }
                }
                var results: [LoadCallResult] = []
                for await result in group { results.append(result) }
                return results
            }
        }
    }
}
