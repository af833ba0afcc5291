import Foundation
import SwiftRTC
import Synchronization

/// Watches one call's `PeerConnection` for the bot report and the live stats: when ICE and
/// DTLS connected (from the start of negotiation), what the remote tracks decode (RMS of all
/// decoded PCM), optional echo of received media into local tracks, and statsString every
/// `statsInterval`.
final class CallMonitor: Sendable {
    let connection: PeerConnection
    let role: String
    private let started: ContinuousClock.Instant
    private let statsInterval: Duration
    private let label: String
    private let statsJSON: Bool
    private let metrics = BotMetrics.Connection()

    private struct State {
        var iceConnected: Duration?
        var dtlsConnected: Duration?
        var connected = false
        var failed = false
        var errors: [String] = []
        var audioMeter = AudioLevelMeter()
        var decodedPCM = false
        var tasks: [Task<Void, Never>] = []
        var report: BotReport?
        /// Rows of the channels this side exercised, and the channels it echoes (with the
        /// time from the start to their announcement).
        var dataRows: [BotReport.DataChannelRow] = []
        var echoed: [(channel: DataChannel, openMs: Int)] = []
    }
    private let state = Mutex(State())

    /// Starts watching `connection` (call before negotiating: times count from `started`).
    init(
        connection: PeerConnection,
        role: String,
        started: ContinuousClock.Instant,
        statsInterval: Duration,
        label: String,
        statsJSON: Bool = false
    ) async {
        self.statsJSON = statsJSON
        self.connection = connection
        self.role = role
        self.started = started
        self.statsInterval = statsInterval
        self.label = label
        BotMetrics.callStarted()
        let iceStates = await connection.iceConnectionStates()
        let connectionStates = await connection.connectionStates()
        let ice = Task { [weak self] in
            for await ice in iceStates {
                guard let self else { return }
                let elapsed = ContinuousClock.now - self.started
                self.state.withLock { state in
                    if ice == .connected || ice == .completed, state.iceConnected == nil {
                        state.iceConnected = elapsed
                    }
                }
            }
        }
        let connectionTask = Task { [weak self] in
            for await connectionState in connectionStates {
                guard let self else { return }
                let elapsed = ContinuousClock.now - self.started
                self.state.withLock { state in
                    switch connectionState {
                    case .connected:
                        if state.dtlsConnected == nil { state.dtlsConnected = elapsed }
                        state.connected = true
                    case .failed:
                        if !state.failed { state.errors.append("connection failed (ICE or DTLS)") }
                        state.failed = true
                    default: break
                    }
                }
            }
        }
        state.withLock { $0.tasks += [ice, connectionTask] }
    }

    /// After negotiation: meters the remote audio and, if given, echoes each remote track
    /// into the matching local track; prints statsString every interval.
    func startMedia(echo: CallMedia?) async {
        for transceiver in await connection.transceivers {
            let remote = transceiver.receiver.track
            if transceiver.kind == .audio {
                remote.setAudioSink { [weak self] frame in
                    self?.state.withLock {
                        $0.audioMeter.analyze(frame)
                        $0.decodedPCM = true
                    }
                }
            }
            guard let local = transceiver.kind == .audio ? echo?.audio : echo?.video else { continue }
            let frames = remote.frames()
            let task = Task {
                for await frame in frames { local.push(frame) }
            }
            state.withLock { $0.tasks.append(task) }
        }
        let stats = Task { [connection, statsInterval, label, statsJSON, metrics] in
            while !Task.isCancelled {
                try? await Task.sleep(for: statsInterval)
                guard !Task.isCancelled else { return }
                let report = await connection.stats()
                metrics.update(report)
                if statsJSON {
                    printLine(statsJSONLine(report))
                    continue
                }
                let text = await connection.statsString()
                printLine(
                    label.isEmpty ? text : text.split(separator: "\n").map { "\(label) \($0)" }.joined(separator: "\n")
                )
            }
        }
        state.withLock { $0.tasks.append(stats) }
    }

    /// Waits until the call is connected (true), failed, finished, or `timeout` passed (false).
    func waitConnected(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let (connected, failed, finished) = state.withLock { ($0.connected, $0.failed, $0.report != nil) }
            if connected { return true }
            // A session ended before it connected (a WHIP offer that never did) lets go at once.
            if failed || finished { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Adds an error to the report.
    func recordError(_ message: String) {
        state.withLock { $0.errors.append(message) }
    }

    /// Ends the call: takes the final stats into the report, closes the connection. Only the
    /// first call does the work; later calls return the same report.
    func finish() async -> BotReport {
        if let done = state.withLock({ $0.report }) { return done }
        let stats = await connection.stats()
        metrics.update(stats)
        let tasks = state.withLock { state in
            defer { state.tasks = [] }
            return state.tasks
        }
        for task in tasks { task.cancel() }
        await connection.close()
        let report = state.withLock { state -> BotReport in
            var report = BotReport(role: role)
            report.connected = state.connected
            report.iceConnectedMs = state.iceConnected.map(Self.milliseconds)
            report.dtlsConnectedMs = state.dtlsConnected.map(Self.milliseconds)
            report.durationMs = Self.milliseconds(ContinuousClock.now - started)
            report.errors = state.errors
            Self.fill(&report, from: stats)
            let echoed = state.echoed.map { echoed in
                var row = BotReport.DataChannelRow(label: echoed.channel.label)
                let statistics = echoed.channel.statistics
                row.messagesSent = statistics.messagesSent
                row.bytesSent = statistics.bytesSent
                row.messagesReceived = statistics.messagesReceived
                row.bytesReceived = statistics.bytesReceived
                row.openMs = echoed.openMs
                return row
            }
            if !state.dataRows.isEmpty || !echoed.isEmpty { report.dataChannels = state.dataRows + echoed }
            if report.audio.rtpPacketsReceived != nil { report.audio.rms = state.decodedPCM ? state.audioMeter.rms : 0 }
            if state.report == nil {
                state.report = report
                BotMetrics.callEnded(connected: report.connected)
            }
            return state.report ?? report
        }
        return report
    }

    /// Adds the row of a data channel this side exercised to the report.
    func record(_ row: BotReport.DataChannelRow) { state.withLock { $0.dataRows.append(row) } }

    /// Echoes every message of every channel the peer opens (`--echo-data`); each is a row of
    /// the report.
    func echoDataChannels() {
        let channels = connection.dataChannels
        let task = Task { [weak self] in
            for await channel in channels {
                guard let self else { return }
                let openMs = Self.milliseconds(ContinuousClock.now - self.started)
                let echo = Task { await DataChannelExercise.echo(channel) }
                self.state.withLock {
                    $0.echoed.append((channel, openMs))
                    $0.tasks.append(echo)
                }
            }
        }
        state.withLock { $0.tasks.append(task) }
    }

    /// Counters, sizes and the selected pair from a stats report.
    static func fill(_ report: inout BotReport, from stats: StatsReport) {
        func int(_ stats: StatsReport.Stats?, _ name: String) -> Int? { stats?.number(name).map { Int($0) } }
        let audioOut = stats.first(.outboundRTP, kind: "audio"), videoOut = stats.first(.outboundRTP, kind: "video")
        let audioIn = stats.first(.inboundRTP, kind: "audio"), videoIn = stats.first(.inboundRTP, kind: "video")
        report.audio.rtpPacketsSent = int(audioOut, "packetsSent")
        report.audio.rtpPacketsReceived = int(audioIn, "packetsReceived")
        report.audio.framesDecoded = int(audioIn, "framesDecoded")
        report.video.rtpPacketsSent = int(videoOut, "packetsSent")
        report.video.rtpPacketsReceived = int(videoIn, "packetsReceived")
        report.video.framesDecoded = int(videoIn, "framesDecoded")
        report.video.targetKbps = videoOut?.number("targetBitrate").map { Int(($0 / 1000).rounded()) }
        if let width = int(videoIn, "frameWidth"), let height = int(videoIn, "frameHeight"), width > 0, height > 0 {
            report.video.width = width
            report.video.height = height
        }
        fillQuality(&report, audioIn: audioIn, videoIn: videoIn, videoOut: videoOut)
        let transport = stats.first(.transport)
        report.srtpCipher = transport?.string("srtpCipher")
        report.dtlsCipher = transport?.string("dtlsCipher")
        if let pair = stats.first(.candidatePair) {
            let local = pair.string("localCandidateId").flatMap { stats.stats[$0] }
            let remote = pair.string("remoteCandidateId").flatMap { stats.stats[$0] }
            report.localCandidateType = local?.string("candidateType")
            report.remoteCandidateType = remote?.string("candidateType")
            report.candidateProtocol = local?.string("protocol")
            report.bandwidthEstimateKbps = pair.number("availableOutgoingBitrate").map { Int(($0 / 1000).rounded()) }
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.milliseconds)
    }
}
