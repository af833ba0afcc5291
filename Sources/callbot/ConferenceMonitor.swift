import Foundation
import SwiftRTC
import Synchronization

/// Watches a `conference` bot's room for the report and the live stats: meters every
/// subscribed publisher's audio (decoded only when something takes it), counts failed
/// subscriptions as errors, prints statsString every `statsInterval`, and at the end fills
/// the report's rows, one per publisher.
final class ConferenceMonitor: Sendable {
    let session: ConferenceSession
    private struct State {
        var errors: [String] = []
        var audioMeter = AudioLevelMeter()
        var decodedPCM = false
        var publishersSeen = 0
        var events: Task<Void, Never>?
        /// Readers of the publishers' data channels (every message is read, printed with `--chat`).
        var readers: [Task<Void, Never>] = []
        /// The display names of the publishers seen (at most ``ConferenceSession/maxPublishers`` × 4).
        var names: [Int64: String] = [:]
        var stats: Task<Void, Never>?
        var watcher: Task<Void, Never>?
        /// Whether each connection reached `connected` (a session Janus ended has them closed).
        var publishingConnected = false
        var subscriptionConnected = false
        /// Why the session ended, once it has.
        var ended: String?
    }
    private let state = Mutex(State())

    /// Whether the room's messages are printed (`--chat`).
    let printsChat: Bool

    init(session: ConferenceSession, statsInterval: Duration, printsChat: Bool) {
        self.session = session
        self.printsChat = printsChat
        let events = Task { [weak self] in
            for await event in session.events {
                guard let self else { return }
                self.handle(event)
            }
        }
        let stats = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: statsInterval)
                guard !Task.isCancelled else { return }
                let text = await session.statsString()
                if !text.isEmpty { printLine(text) }
            }
        }
        let watcher = Task { [weak self] in
            while !Task.isCancelled {
                let publishing = await session.publishingConnection, subscription = await session.subscriptionConnection
                let published = await publishing?.connectionState == .connected
                let subscribed = await subscription?.connectionState == .connected
                self?.state.withLock {
                    $0.publishingConnected = $0.publishingConnected || published
                    $0.subscriptionConnected = $0.subscriptionConnected || subscribed
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        state.withLock {
            $0.events = events
            $0.stats = stats
            $0.watcher = watcher
        }
    }

    /// Why the room ended without this bot leaving (Janus restarted, the session timed out);
    /// nil while it goes on.
    var endedByJanus: String? { state.withLock { $0.ended } }

    private func handle(_ event: ConferenceSessionEvent) {
        switch event {
        case .publishersReceived(let publishers):
            state.withLock { state in
                state.publishersSeen += publishers.count
                for publisher in publishers where state.names.count < 4 * ConferenceSession.maxPublishers {
                    state.names[publisher.id] = publisher.display
                }
            }
            for publisher in publishers { log("publisher \(publisher.id) \(publisher.display ?? "") joined") }
        case .publisherLeft(let id):
            log("publisher \(id) left")
        case .remoteTrack(let publisher, let track):
            log("receiving \(track.kind) of publisher \(publisher)")
            guard track.kind == .audio else { return }
            track.setAudioSink { [weak self] frame in
                self?.state.withLock {
                    $0.audioMeter.analyze(frame)
                    $0.decodedPCM = true
                }
            }
        case .remoteDataChannel(let publisher, let channel):
            let printsChat = printsChat, session = session
            let reader = Task {
                let name = await session.publishers[publisher]?.display ?? "\(publisher)"
                for await message in channel.messages where printsChat {
                    printLine("conference: chat \(name): \(ChatInput.text(of: message))")
                }
            }
            state.withLock { $0.readers.append(reader) }
        case .slowLink(let publisher, let uplink, let lost):
            log(
                "slow link \(uplink ? "to" : "from") Janus\(publisher.map { " (publisher \($0))" } ?? ""): \(lost) lost"
            )
        case .layerChanged(let publisher, let layer):
            let parts = [layer.substream.map { "substream \($0)" }, layer.temporal.map { "temporal \($0)" }]
            let name = state.withLock { $0.names[publisher] } ?? "\(publisher)"
            printLine("conference: layer \(name): \(parts.compactMap { $0 }.joined(separator: ", "))")
        case .subscriptionFailed(let publisher, let reason):
            state.withLock { $0.errors.append("subscribing to publisher \(publisher) failed: \(reason)") }
        case .recordingFinished(_, let files):
            for file in files { log("recorded \(file.path)") }
        case .recordingFailed(let publisher, let reason):
            state.withLock { $0.errors.append("recording publisher \(publisher): \(reason)") }
        case .ended(let reason):
            log("left the room: \(reason)")
            if reason != "left" { state.withLock { $0.ended = reason } }
        }
    }

    /// Leaves the room and makes the report: connected when every connection made reached `connected`,
    /// the sent counters of the publishing connection, the received ones of the subscription,
    /// one row per publisher, the recordings' failures among the errors.
    func finish(into report: inout BotReport) async {
        let publishing = await session.publishingConnection
        let subscription = await session.subscriptionConnection
        let rows = await session.publisherStats()
        if let publishing { CallMonitor.fill(&report, from: await publishing.stats()) }
        if let subscription {
            let stats = await subscription.stats()
            var received = BotReport(role: report.role)
            CallMonitor.fill(&received, from: stats)
            report.audio.rtpPacketsReceived = Self.sum(stats, .inboundRTP, kind: "audio", "packetsReceived")
            report.audio.framesDecoded = Self.sum(stats, .inboundRTP, kind: "audio", "framesDecoded")
            report.video.rtpPacketsReceived = Self.sum(stats, .inboundRTP, kind: "video", "packetsReceived")
            report.video.framesDecoded = Self.sum(stats, .inboundRTP, kind: "video", "framesDecoded")
            report.remoteCandidateType = report.remoteCandidateType ?? received.remoteCandidateType
            // The size of the video received (a simulcast publisher's: the layer's).
            if let width = received.video.width, let height = received.video.height {
                (report.video.width, report.video.height) = (width, height)
            }
        }
        // Leaving ends the recordings; the events say how each ended, then end.
        await session.leave()
        let (events, stats, watcher) = state.withLock { ($0.events, $0.stats, $0.watcher) }
        stats?.cancel()
        watcher?.cancel()
        await events?.value
        for reader in state.withLock({ $0.readers }) { await reader.value }
        let (errors, rms, seen, published, subscribed) = state.withLock {
            (
                $0.errors, $0.decodedPCM ? $0.audioMeter.rms : 0, $0.publishersSeen, $0.publishingConnected,
                $0.subscriptionConnected
            )
        }
        if seen > 0 && subscription == nil { report.errors.append("publishers were announced but none was received") }
        report.connected =
            (publishing != nil || subscription != nil) && (publishing == nil || published)
            && (subscription == nil || subscribed)
        report.audio.rms = subscription == nil ? nil : rms
        report.errors += errors
        report.publishers = rows.map { row in
            var line = BotReport.PublisherRow(id: row.id, display: row.display)
            line.audioFramesDecoded = row.audioFramesDecoded
            line.videoFramesDecoded = row.videoFramesDecoded
            line.packetsLost = row.packetsLost
            line.dataMessagesReceived = row.dataMessagesReceived
            line.layer = row.layer?.substream
            return line
        }
    }

    /// A counter summed over every stream of `kind` (nil when there is none).
    static func sum(_ stats: StatsReport, _ type: StatsReport.StatsType, kind: String, _ name: String) -> Int? {
        let streams = stats.all(type).filter { $0.string("kind") == kind }
        guard !streams.isEmpty else { return nil }
        return streams.reduce(0) { $0 + Int($1.number(name) ?? 0) }
    }
}

extension BotReport {
    /// This report and a later stay's in the same room (`conference` after joining again):
    /// connected only if both were, errors and rows of both, counters summed.
    func adding(_ later: BotReport) -> BotReport {
        func sum(_ a: Int?, _ b: Int?) -> Int? { a == nil && b == nil ? nil : (a ?? 0) + (b ?? 0) }
        var total = later
        total.connected = connected && later.connected
        total.errors = errors + later.errors
        total.publishers = (publishers ?? []) + (later.publishers ?? [])
        total.audio.rtpPacketsSent = sum(audio.rtpPacketsSent, later.audio.rtpPacketsSent)
        total.audio.rtpPacketsReceived = sum(audio.rtpPacketsReceived, later.audio.rtpPacketsReceived)
        total.audio.framesDecoded = sum(audio.framesDecoded, later.audio.framesDecoded)
        total.video.rtpPacketsSent = sum(video.rtpPacketsSent, later.video.rtpPacketsSent)
        total.video.rtpPacketsReceived = sum(video.rtpPacketsReceived, later.video.rtpPacketsReceived)
        total.video.framesDecoded = sum(video.framesDecoded, later.video.framesDecoded)
        total.iceConnectedMs = iceConnectedMs ?? later.iceConnectedMs
        total.dtlsConnectedMs = dtlsConnectedMs ?? later.dtlsConnectedMs
        return total
    }
}
