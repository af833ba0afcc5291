import Foundation

extension StatsReport {
    /// The human report of DESIGN.md, one line per stream kind present, bitrates over the
    /// interval since `previous` (since the start without it):
    ///
    /// ```
    /// CN 565ms | host->host/udp | (s)248Kbps | (r)869Kbps
    /// VS (input) 640x480@30fps | (sent) 640x480@30fps
    /// VS (enc) 279Kbps/260Kbps | (sent) 200Kbps/292Kbps | 8ms | VP8
    /// AvgQP (past 30 encoded frames) = 36
    /// VR (recv) 640x480@26fps | (decoded)27 | (output)27fps | 827Kbps/0bps | 4ms
    /// AS 38Kbps | opus
    /// AR 37Kbps | opus | 168ms | (expandrate)0.190002
    /// Packets lost: VS 17 | VR 0 | AS 3 | AR 0
    /// ```
    public func statsString(since previous: StatsReport?) -> String {
        let lines = StatsLines(report: self, previous: previous)
        let vs = first(.outboundRTP, kind: "video"), vr = first(.inboundRTP, kind: "video")
        let asOut = first(.outboundRTP, kind: "audio"), arIn = first(.inboundRTP, kind: "audio")
        var text: [String] = lines.candidatePair()
        if let vs { text += lines.videoSent(vs) }
        if let vr { text += lines.videoReceived(vr) }
        if let asOut { text.append("AS \(Self.bitrate(lines.rate(asOut, "bytesSent"))) | \(lines.codecName(asOut))") }
        if let arIn { text += lines.audioReceived(arIn) }
        text += lines.dataChannels()
        var lost: [String] = []
        if let vs { lost.append("VS \(Int(stats["RI-\(vs.string("ssrc") ?? "")"]?.number("packetsLost") ?? 0))") }
        if let vr { lost.append("VR \(Int(vr.number("packetsLost") ?? 0))") }
        if let asOut { lost.append("AS \(Int(stats["RI-\(asOut.string("ssrc") ?? "")"]?.number("packetsLost") ?? 0))") }
        if let arIn { lost.append("AR \(Int(arIn.number("packetsLost") ?? 0))") }
        if !lost.isEmpty { text.append("Packets lost: " + lost.joined(separator: " | ")) }
        return text.joined(separator: "\n")
    }

    /// `248Kbps` from 1000 bits/s up, `0bps` below.
    static func bitrate(_ bitsPerSecond: Double) -> String {
        bitsPerSecond >= 1000 ? "\(Int(bitsPerSecond / 1000))Kbps" : "\(Int(bitsPerSecond))bps"
    }
}

/// The lines of ``StatsReport/statsString(since:)``, with counters as deltas and rates over
/// the interval since `previous` (since the start without it).
struct StatsLines {
    let report: StatsReport
    let previous: StatsReport?
    let seconds: Double

    init(report: StatsReport, previous: StatsReport?) {
        self.report = report
        self.previous = previous
        seconds = max(0.001, (report.timestamp - (previous?.timestamp ?? report.timestamp - 1000)) / 1000)
    }

    /// How much the counter `name` of `stats` grew over the interval (0 when it shrank).
    func delta(_ stats: StatsReport.Stats?, _ name: String) -> Double {
        guard let stats, let now = stats.number(name) else { return 0 }
        return max(0, now - (previous?.stats[stats.id]?.number(name) ?? 0))
    }

    /// The counter `name` of `stats` (bytes) as bits per second over the interval.
    func rate(_ stats: StatsReport.Stats?, _ name: String) -> Double { delta(stats, name) * 8 / seconds }

    /// A frame rate, rounded to whole frames.
    func fps(_ value: Double?) -> String { String(Int((value ?? 0).rounded())) }

    /// The codec's name from its MIME type (`opus`, `VP8`), `-` when unknown.
    func codecName(_ stats: StatsReport.Stats?) -> String {
        guard let id = stats?.string("codecId"), let mime = report.stats[id]?.string("mimeType") else { return "-" }
        return String(mime.split(separator: "/").last ?? "-")
    }

    /// `CN`: the selected pair's round trip, candidate types, and bitrates both ways.
    func candidatePair() -> [String] {
        var lines: [String] = []
        if let pair = report.all(.candidatePair).first {
            let local = pair.string("localCandidateId").flatMap { report.stats[$0] }
            let remote = pair.string("remoteCandidateId").flatMap { report.stats[$0] }
            let rtt = pair.number("currentRoundTripTime").map { "\(Int(($0 * 1000).rounded()))ms" } ?? "-"
            let types =
                "\(local?.string("candidateType") ?? "-")->\(remote?.string("candidateType") ?? "-")/\(local?.string("protocol") ?? "udp")"
            lines.append(
                "CN \(rtt) | \(types) | (s)\(StatsReport.bitrate(rate(pair, "bytesSent"))) | (r)\(StatsReport.bitrate(rate(pair, "bytesReceived")))"
            )
        }
        return lines
    }

    /// `VS`: the video sent, its input and encoding, and the encoder's quantizer.
    func videoSent(_ vs: StatsReport.Stats) -> [String] {
        var lines: [String] = []
        let source = vs.string("mediaSourceId").flatMap { report.stats[$0] }
        let input =
            "\(Int(source?.number("width") ?? 0))x\(Int(source?.number("height") ?? 0))@\(fps(source?.number("framesPerSecond")))fps"
        let sent =
            "\(Int(vs.number("frameWidth") ?? 0))x\(Int(vs.number("frameHeight") ?? 0))@\(fps(vs.number("framesPerSecond")))fps"
        lines.append("VS (input) \(input) | (sent) \(sent)")
        let encoded = rate(vs, "totalEncodedBytesTarget")
        let target = vs.number("targetBitrate") ?? 0
        let available = report.all(.candidatePair).first?.number("availableOutgoingBitrate") ?? target
        let frames = delta(vs, "framesEncoded")
        let encodeMs = frames > 0 ? delta(vs, "totalEncodeTime") / frames * 1000 : 0
        lines.append(
            "VS (enc) \(StatsReport.bitrate(encoded))/\(StatsReport.bitrate(target)) | (sent) \(StatsReport.bitrate(rate(vs, "bytesSent")))/\(StatsReport.bitrate(available)) | \(Int(encodeMs.rounded()))ms | \(codecName(vs))"
        )
        lines.append("AvgQP (past 30 encoded frames) = \(Int((vs.number("qpAverage") ?? 0).rounded()))")
        return lines
    }

    /// `VR`: the video received, decoded and shown.
    func videoReceived(_ vr: StatsReport.Stats) -> [String] {
        var lines: [String] = []
        let received =
            "\(Int(vr.number("frameWidth") ?? 0))x\(Int(vr.number("frameHeight") ?? 0))@\(fps(vr.number("framesReceivedPerSecond")))fps"
        let decoded = delta(vr, "framesDecoded")
        let decodeMs = decoded > 0 ? delta(vr, "totalDecodeTime") / decoded * 1000 : 0
        lines.append(
            "VR (recv) \(received) | (decoded)\(fps(decoded / seconds)) | (output)\(fps(vr.number("framesPerSecond")))fps | \(StatsReport.bitrate(rate(vr, "bytesReceived")))/\(StatsReport.bitrate(rate(vr, "retransmittedBytesReceived"))) | \(Int(decodeMs.rounded()))ms"
        )
        return lines
    }

    /// `AR`: the audio received, its jitter buffer delay and concealment.
    func audioReceived(_ arIn: StatsReport.Stats) -> [String] {
        var lines: [String] = []
        let emitted = delta(arIn, "jitterBufferEmittedCount")
        let delayMs = emitted > 0 ? delta(arIn, "jitterBufferDelay") / emitted * 1000 : 0
        let samples = delta(arIn, "totalSamplesReceived")
        let expand = samples > 0 ? delta(arIn, "concealedSamples") / samples : 0
        lines.append(
            "AR \(StatsReport.bitrate(rate(arIn, "bytesReceived"))) | \(codecName(arIn)) | \(Int(delayMs.rounded()))ms | (expandrate)\(String(format: "%.6f", expand))"
        )
        return lines
    }

    /// `DC`: the data channels open, and messages and bitrates both ways.
    func dataChannels() -> [String] {
        var lines: [String] = []
        let channels = report.all(.dataChannel)
        guard !channels.isEmpty else { return [] }
        let open = channels.filter { $0.string("state") == "open" }.count
        let sent = channels.reduce(0) { $0 + delta($1, "messagesSent") }
        let received = channels.reduce(0) { $0 + delta($1, "messagesReceived") }
        let bitsSent = channels.reduce(0) { $0 + rate($1, "bytesSent") }
        let bitsReceived = channels.reduce(0) { $0 + rate($1, "bytesReceived") }
        lines.append(
            "DC \(open) open | (s)\(Int(sent)) msg \(StatsReport.bitrate(bitsSent)) | (r)\(Int(received)) msg \(StatsReport.bitrate(bitsReceived))"
        )
        return lines
    }
}
