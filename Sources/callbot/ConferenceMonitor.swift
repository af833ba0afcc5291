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
        var stats: Task<Void, Never>?
    }
    private let state = Mutex(State())

    init(session: ConferenceSession, statsInterval: Duration) {
        self.session = session
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
        state.withLock {
            $0.events = events
            $0.stats = stats
        }
    }

    private func handle(_ event: ConferenceSessionEvent) {
        switch event {
        case .publishersReceived(let publishers):
            state.withLock { $0.publishersSeen += publishers.count }
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
        case .slowLink(let publisher, let uplink, let lost):
            log(
                "slow link \(uplink ? "to" : "from") Janus\(publisher.map { " (publisher \($0))" } ?? ""): \(lost) lost"
            )
        case .subscriptionFailed(let publisher, let reason):
            state.withLock { $0.errors.append("subscribing to publisher \(publisher) failed: \(reason)") }
        case .recordingFinished(_, let files):
            for file in files { log("recorded \(file.path)") }
        case .recordingFailed(let publisher, let reason):
            state.withLock { $0.errors.append("recording publisher \(publisher): \(reason)") }
        case .ended(let reason):
            log("left the room: \(reason)")
        }
    }

    /// Leaves the room and makes the report: connected when every connection made connected,
    /// the sent counters of the publishing connection, the received ones of the subscription,
    /// one row per publisher, the recordings' failures among the errors.
    func finish(into report: inout BotReport) async {
        let publishing = await session.publishingConnection
        let subscription = await session.subscriptionConnection
        let rows = await session.publisherStats()
        var connected = true
        if let publishing {
            CallMonitor.fill(&report, from: await publishing.stats())
            let state = await publishing.connectionState
            connected = connected && state == .connected
        }
        if let subscription {
            let stats = await subscription.stats()
            var received = BotReport(role: report.role)
            CallMonitor.fill(&received, from: stats)
            report.audio.rtpPacketsReceived = Self.sum(stats, .inboundRTP, kind: "audio", "packetsReceived")
            report.audio.framesDecoded = Self.sum(stats, .inboundRTP, kind: "audio", "framesDecoded")
            report.video.rtpPacketsReceived = Self.sum(stats, .inboundRTP, kind: "video", "packetsReceived")
            report.video.framesDecoded = Self.sum(stats, .inboundRTP, kind: "video", "framesDecoded")
            report.remoteCandidateType = report.remoteCandidateType ?? received.remoteCandidateType
            let state = await subscription.connectionState
            connected = connected && state == .connected
        }
        // Leaving ends the recordings; the events say how each ended, then end.
        await session.leave()
        let (events, stats) = state.withLock { ($0.events, $0.stats) }
        stats?.cancel()
        await events?.value
        let (errors, rms, seen) = state.withLock {
            ($0.errors, $0.decodedPCM ? $0.audioMeter.rms : 0, $0.publishersSeen)
        }
        if seen > 0 && subscription == nil { report.errors.append("publishers were announced but none was received") }
        report.connected = connected && (publishing != nil || subscription != nil)
        report.audio.rms = subscription == nil ? nil : rms
        report.errors += errors
        report.publishers = rows.map { row in
            var line = BotReport.PublisherRow(id: row.id, display: row.display)
            line.audioFramesDecoded = row.audioFramesDecoded
            line.videoFramesDecoded = row.videoFramesDecoded
            line.packetsLost = row.packetsLost
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
