import Foundation

/// The report of `callbot load` (`--report FILE`, JSON, keys sorted; README "Load test"). A
/// figure that cannot be known (a percentile of no connected call, memory without `/proc`) is
/// `null`, written, not left out. Field names are the contract: add fields, never rename.
struct LoadReport: Encodable, Sendable, Equatable {
    /// p50/p95/p99/max of a set of milliseconds, by nearest rank; all null for an empty set.
    struct Percentiles: Encodable, Sendable, Equatable {
        var p50: Int?
        var p95: Int?
        var p99: Int?
        var max: Int?

        init(_ values: [Double]) {
            let sorted = values.sorted()
            func rank(_ p: Double) -> Int? {
                guard !sorted.isEmpty else { return nil }
                let index = Int((p * Double(sorted.count)).rounded(.up)) - 1
                return Int(sorted[Swift.min(Swift.max(index, 0), sorted.count - 1)].rounded())
            }
            p50 = rank(0.50)
            p95 = rank(0.95)
            p99 = rank(0.99)
            max = sorted.last.map { Int($0.rounded()) }
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(p50, forKey: .p50)
            try c.encode(p95, forKey: .p95)
            try c.encode(p99, forKey: .p99)
            try c.encode(max, forKey: .max)
        }

        enum CodingKeys: String, CodingKey { case p50, p95, p99, max }
    }

    /// Bots that took part (logged in or tried to), and the group size.
    var bots = 0
    var groupSize = 2
    /// Signaling server URLs the bots were spread over.
    var servers = 0
    /// Whether the calls were audio only (else audio and VP8 video).
    var audioOnly = true
    /// Calls (groups) started; connected: every member's media connected with every other
    /// member; failed = attempted - connected.
    var callsAttempted = 0
    var callsConnected = 0
    var callsFailed = 0
    /// Connected calls in which every member decoded audio from every other member.
    var callsDecodedAudio = 0
    /// Why calls failed (or, connected, decoded no audio), counted by reason.
    var failures: [String: Int] = [:]
    /// Login (WebSocket connect to welcome) of each bot, ms.
    var loginMs = Percentiles([])
    /// Setup of each connected call: the caller's call request to the last member's media
    /// connected, ms.
    var setupMs = Percentiles([])
    /// RTP packets (audio, plus video with --video) every bot sent and received in every
    /// connection, those the receivers counted lost, and lost / (received + lost).
    var packetsSent = 0
    var packetsReceived = 0
    var packetsLost = 0
    var lossFraction: Double?
    /// Audio frames decoded to PCM (counted by each bot's audio sink) and video frames decoded
    /// (inbound-rtp `framesDecoded`), over every bot.
    var audioFramesDecoded = 0
    var videoFramesDecoded = 0
    /// CPU seconds (getrusage user + system) the whole process used, and per connected call.
    var cpuSeconds = 0.0
    var cpuSecondsPerCall: Double?
    /// Peak resident memory (`VmHWM`), the resident memory before the first bot, and
    /// (peak - before) / connected calls, in MB.
    var peakRssMB: Double?
    var baselineRssMB: Double?
    var rssMBPerCall: Double?
    /// Descriptors open at the busiest moment seen (sampled each second) and the limit.
    var peakOpenFiles = 0
    var openFileLimit = 0
    /// Seconds each call was held once connected (--duration), the start spread (--ramp), and
    /// the whole run's wall time.
    var callDurationS = 0.0
    var rampS = 0.0
    var wallS = 0.0

    enum CodingKeys: String, CodingKey {
        case bots, groupSize = "group_size", servers, audioOnly = "audio_only"
        case callsAttempted = "calls_attempted", callsConnected = "calls_connected", callsFailed = "calls_failed"
        case callsDecodedAudio = "calls_decoded_audio", failures
        case loginMs = "login_ms", setupMs = "setup_ms"
        case packetsSent = "packets_sent", packetsReceived = "packets_received", packetsLost = "packets_lost",
            lossFraction = "loss_fraction"
        case audioFramesDecoded = "audio_frames_decoded", videoFramesDecoded = "video_frames_decoded"
        case cpuSeconds = "cpu_seconds", cpuSecondsPerCall = "cpu_seconds_per_call"
        case peakRssMB = "peak_rss_mb", baselineRssMB = "baseline_rss_mb", rssMBPerCall = "rss_mb_per_call"
        case peakOpenFiles = "peak_open_files", openFileLimit = "open_file_limit"
        case callDurationS = "call_duration_s", rampS = "ramp_s", wallS = "wall_s"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(bots, forKey: .bots)
        try c.encode(groupSize, forKey: .groupSize)
        try c.encode(servers, forKey: .servers)
        try c.encode(audioOnly, forKey: .audioOnly)
        try c.encode(callsAttempted, forKey: .callsAttempted)
        try c.encode(callsConnected, forKey: .callsConnected)
        try c.encode(callsFailed, forKey: .callsFailed)
        try c.encode(callsDecodedAudio, forKey: .callsDecodedAudio)
        try c.encode(failures, forKey: .failures)
        try c.encode(loginMs, forKey: .loginMs)
        try c.encode(setupMs, forKey: .setupMs)
        try c.encode(packetsSent, forKey: .packetsSent)
        try c.encode(packetsReceived, forKey: .packetsReceived)
        try c.encode(packetsLost, forKey: .packetsLost)
        try c.encode(lossFraction, forKey: .lossFraction)
        try c.encode(audioFramesDecoded, forKey: .audioFramesDecoded)
        try c.encode(videoFramesDecoded, forKey: .videoFramesDecoded)
        try c.encode(cpuSeconds, forKey: .cpuSeconds)
        try c.encode(cpuSecondsPerCall, forKey: .cpuSecondsPerCall)
        try c.encode(peakRssMB, forKey: .peakRssMB)
        try c.encode(baselineRssMB, forKey: .baselineRssMB)
        try c.encode(rssMBPerCall, forKey: .rssMBPerCall)
        try c.encode(peakOpenFiles, forKey: .peakOpenFiles)
        try c.encode(openFileLimit, forKey: .openFileLimit)
        try c.encode(callDurationS, forKey: .callDurationS)
        try c.encode(rampS, forKey: .rampS)
        try c.encode(wallS, forKey: .wallS)
    }

    /// Every call connected and decoded audio (and there was at least one).
    var passed: Bool { callsAttempted > 0 && callsConnected == callsAttempted && callsDecodedAudio == callsAttempted }

    /// The summary line printed at the end.
    var summary: String {
        func ms(_ value: Int?) -> String { value.map { "\($0) ms" } ?? "-" }
        func fixed(_ value: Double?, _ digits: Int) -> String {
            value.map { String(format: "%.\(digits)f", $0) } ?? "-"
        }
        return
            "load: \(callsConnected)/\(callsAttempted) calls connected, \(callsDecodedAudio) decoded audio, \(callsFailed) failed; "
            + "setup p50 \(ms(setupMs.p50)) p95 \(ms(setupMs.p95)) max \(ms(setupMs.max)); "
            + "loss \(fixed(lossFraction, 4)); cpu \(fixed(cpuSeconds, 1)) s (\(fixed(cpuSecondsPerCall, 2)) s/call); "
            + "peak rss \(fixed(peakRssMB, 0)) MB (\(fixed(rssMBPerCall, 2)) MB/call); \(bots) bots in \(fixed(wallS, 1)) s"
    }

    /// The report as pretty-printed JSON, keys sorted.
    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }
}
