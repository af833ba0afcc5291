import Foundation
import SwiftRTC
import Synchronization

/// `callbot load --janus URL --room N --bots K`: K publishers in this process fill one room of
/// Janus's VideoRoom, each on a Janus session of its own (its own WebSocket, as separate
/// participants are), each sending a tone (and with `--video` a 160x120 pattern at 15 fps) and
/// subscribing to every other; after `--duration` the counters are taken and everyone leaves.
/// One JSON line says what joined and what every bot decoded of every other.
struct ConferenceLoad: Sendable {
    let url: URL
    let room: Int64
    let bots: Int
    let video: Bool
    let duration: Duration
    let ramp: Duration
    let trust: TLSTrust

    /// The most bots of one room (Janus's room allows ``ConferenceSession/maxPublishers``;
    /// each bot receives every other, so the streams grow with the square).
    static let maxBots = 64

    /// What one bot saw.
    struct BotResult: Sendable {
        var joinMs: Double?
        var failure: String?
        var rows: [ConferencePublisherStats] = []
    }

    func run() async -> ConferenceLoadReport {
        let started = ContinuousClock.now
        let baseline = ProcessResources.residentBytes()
        let results = await withTaskGroup(of: BotResult.self) { group in
            for index in 0..<bots {
                let offset = ramp * (Double(index) / Double(bots))
                group.addTask {
                    try? await Task.sleep(until: started + offset)
                    return await runBot(index: index, until: started + ramp + duration)
                }
            }
            var results: [BotResult] = []
            for await result in group { results.append(result) }
            return results
        }
        var report = ConferenceLoadReport(room: room, bots: bots, audioOnly: !video)
        report.joined = results.count { $0.joinMs != nil }
        report.joinMs = LoadReport.Percentiles(results.compactMap(\.joinMs))
        for failure in results.compactMap(\.failure) { report.failures[failure, default: 0] += 1 }
        report.streamsExpected = report.joined * (report.joined - 1) * (video ? 2 : 1)
        for row in results.flatMap(\.rows) {
            report.streamsDecoding +=
                (row.audioFramesDecoded > 0 ? 1 : 0) + (video && row.videoFramesDecoded > 0 ? 1 : 0)
            report.audioFramesDecoded += row.audioFramesDecoded
            report.videoFramesDecoded += row.videoFramesDecoded
            report.packetsLost += row.packetsLost
        }
        report.cpuSeconds = ProcessResources.cpuSeconds()
        let megabyte = 1_048_576.0
        let peak = ProcessResources.peakResidentBytes()
        report.peakRssMB = peak.map { Double($0) / megabyte }
        if let peak, let baseline, report.joined > 0 {
            report.rssMBPerBot = Double(max(0, peak - baseline)) / megabyte / Double(report.joined)
        }
        report.wallS = Double(LoadCall.milliseconds(ContinuousClock.now - started)) / 1000
        return report
    }

    /// One bot: connect, join (creating the room if it is the first), publish, decode every
    /// other bot's audio until `end`, then take its rows and leave.
    func runBot(index: Int, until end: ContinuousClock.Instant) async -> BotResult {
        var result = BotResult()
        let joining = ContinuousClock.now
        var configuration = JanusSession.Configuration(url: url)
        configuration.trust = trust
        let janus: JanusSession
        do { janus = try await JanusSession.connect(configuration) } catch {
            result.failure = "connect: \(error)"
            return result
        }
        var options = ConferenceSession.Options()
        options.display = "load-\(index + 1)"
        options.video = video
        options.createsRoom = true
        options.connection = PeerConnection.Configuration(
            gatherAddresses: PeerConnection.Configuration.gatherAddresses(toReach: url.host ?? "")
        )
        options.connection.videoSendSize = VideoSize(width: 160, height: 120)
        options.connection.maxVideoFrameRate = 15
        let session: ConferenceSession
        do { session = try await ConferenceSession.join(janus, room: room, options: options) } catch {
            result.failure = "join: \(error)"
            await janus.destroy()
            return result
        }
        result.joinMs = Double(LoadCall.milliseconds(ContinuousClock.now - joining))
        // Audio is decoded only for a consumer: each remote audio track gets one.
        let decoding = Task {
            for await event in session.events {
                if case .remoteTrack(_, let track) = event, track.kind == .audio { track.setAudioSink { _ in } }
            }
        }
        session.localAudioTrack?.play(ToneGenerator())
        session.localVideoTrack?.play(TestPatternSource(width: 160, height: 120, framesPerSecond: 15))
        try? await Task.sleep(until: end)
        result.rows = await session.publisherStats()
        await session.leave()
        await decoding.value
        await janus.destroy()
        return result
    }
}

/// What `callbot load --janus` prints (one JSON line) and writes with `--report`.
struct ConferenceLoadReport: Encodable, Sendable {
    var room: Int64
    var bots: Int
    var audioOnly: Bool
    var joined = 0
    var joinMs = LoadReport.Percentiles([])
    var failures: [String: Int] = [:]
    /// Streams every bot should decode of every other (audio, and video with `--video`), and
    /// those that decoded at least one frame.
    var streamsExpected = 0
    var streamsDecoding = 0
    var audioFramesDecoded = 0
    var videoFramesDecoded = 0
    var packetsLost = 0
    var cpuSeconds = 0.0
    var peakRssMB: Double?
    var rssMBPerBot: Double?
    var wallS = 0.0

    /// Every bot joined and decoded every other.
    var passed: Bool { joined == bots && streamsDecoding == streamsExpected }

    enum CodingKeys: String, CodingKey {
        case room, bots, audioOnly = "audio_only", joined, joinMs = "join_ms", failures
        case streamsExpected = "streams_expected", streamsDecoding = "streams_decoding"
        case audioFramesDecoded = "audio_frames_decoded", videoFramesDecoded = "video_frames_decoded"
        case packetsLost = "packets_lost", cpuSeconds = "cpu_seconds", peakRssMB = "peak_rss_mb"
        case rssMBPerBot = "rss_mb_per_bot", wallS = "wall_s"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(room, forKey: .room)
        try c.encode(bots, forKey: .bots)
        try c.encode(audioOnly, forKey: .audioOnly)
        try c.encode(joined, forKey: .joined)
        try c.encode(joinMs, forKey: .joinMs)
        try c.encode(failures, forKey: .failures)
        try c.encode(streamsExpected, forKey: .streamsExpected)
        try c.encode(streamsDecoding, forKey: .streamsDecoding)
        try c.encode(audioFramesDecoded, forKey: .audioFramesDecoded)
        try c.encode(videoFramesDecoded, forKey: .videoFramesDecoded)
        try c.encode(packetsLost, forKey: .packetsLost)
        try c.encode(cpuSeconds, forKey: .cpuSeconds)
        try c.encode(peakRssMB, forKey: .peakRssMB)
        try c.encode(rssMBPerBot, forKey: .rssMBPerBot)
        try c.encode(wallS, forKey: .wallS)
    }

    /// The report as one line of JSON, keys sorted.
    func line() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
