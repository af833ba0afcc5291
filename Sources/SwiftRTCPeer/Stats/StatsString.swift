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
        let seconds = max(0.001, (timestamp - (previous?.timestamp ?? timestamp - 1000)) / 1000)
        func delta(_ stats: Stats?, _ name: String) -> Double {
            guard let stats, let now = stats.number(name) else { return 0 }
            return max(0, now - (previous?.stats[stats.id]?.number(name) ?? 0))
        }
        func rate(_ stats: Stats?, _ name: String) -> Double { delta(stats, name) * 8 / seconds }
        func fps(_ value: Double?) -> String { String(Int((value ?? 0).rounded())) }
        func codecName(_ stats: Stats?) -> String {
            guard let id = stats?.string("codecId"), let mime = self.stats[id]?.string("mimeType") else { return "-" }
            return String(mime.split(separator: "/").last ?? "-")
        }

        var lines: [String] = []
        if let pair = all(.candidatePair).first {
            let local = pair.string("localCandidateId").flatMap { stats[$0] }
            let remote = pair.string("remoteCandidateId").flatMap { stats[$0] }
            let rtt = pair.number("currentRoundTripTime").map { "\(Int(($0 * 1000).rounded()))ms" } ?? "-"
            let types =
                "\(local?.string("candidateType") ?? "-")->\(remote?.string("candidateType") ?? "-")/\(local?.string("protocol") ?? "udp")"
            lines.append(
                "CN \(rtt) | \(types) | (s)\(Self.bitrate(rate(pair, "bytesSent"))) | (r)\(Self.bitrate(rate(pair, "bytesReceived")))"
            )
        }
        let vs = first(.outboundRTP, kind: "video"), vr = first(.inboundRTP, kind: "video")
        let asOut = first(.outboundRTP, kind: "audio"), arIn = first(.inboundRTP, kind: "audio")
        if let vs {
            let source = vs.string("mediaSourceId").flatMap { stats[$0] }
            let input =
                "\(Int(source?.number("width") ?? 0))x\(Int(source?.number("height") ?? 0))@\(fps(source?.number("framesPerSecond")))fps"
            let sent =
                "\(Int(vs.number("frameWidth") ?? 0))x\(Int(vs.number("frameHeight") ?? 0))@\(fps(vs.number("framesPerSecond")))fps"
            lines.append("VS (input) \(input) | (sent) \(sent)")
            let encoded = rate(vs, "totalEncodedBytesTarget")
            let target = vs.number("targetBitrate") ?? 0
            let available = all(.candidatePair).first?.number("availableOutgoingBitrate") ?? target
            let frames = delta(vs, "framesEncoded")
            let encodeMs = frames > 0 ? delta(vs, "totalEncodeTime") / frames * 1000 : 0
            lines.append(
                "VS (enc) \(Self.bitrate(encoded))/\(Self.bitrate(target)) | (sent) \(Self.bitrate(rate(vs, "bytesSent")))/\(Self.bitrate(available)) | \(Int(encodeMs.rounded()))ms | \(codecName(vs))"
            )
            lines.append("AvgQP (past 30 encoded frames) = \(Int((vs.number("qpAverage") ?? 0).rounded()))")
        }
        if let vr {
            let received =
                "\(Int(vr.number("frameWidth") ?? 0))x\(Int(vr.number("frameHeight") ?? 0))@\(fps(vr.number("framesReceivedPerSecond")))fps"
            let decoded = delta(vr, "framesDecoded")
            let decodeMs = decoded > 0 ? delta(vr, "totalDecodeTime") / decoded * 1000 : 0
            lines.append(
                "VR (recv) \(received) | (decoded)\(fps(decoded / seconds)) | (output)\(fps(vr.number("framesPerSecond")))fps | \(Self.bitrate(rate(vr, "bytesReceived")))/\(Self.bitrate(rate(vr, "retransmittedBytesReceived"))) | \(Int(decodeMs.rounded()))ms"
            )
        }
        if let asOut {
            lines.append("AS \(Self.bitrate(rate(asOut, "bytesSent"))) | \(codecName(asOut))")
        }
        if let arIn {
            let emitted = delta(arIn, "jitterBufferEmittedCount")
            let delayMs = emitted > 0 ? delta(arIn, "jitterBufferDelay") / emitted * 1000 : 0
            let samples = delta(arIn, "totalSamplesReceived")
            let expand = samples > 0 ? delta(arIn, "concealedSamples") / samples : 0
            lines.append(
                "AR \(Self.bitrate(rate(arIn, "bytesReceived"))) | \(codecName(arIn)) | \(Int(delayMs.rounded()))ms | (expandrate)\(String(format: "%.6f", expand))"
            )
        }
        let channels = all(.dataChannel)
        if !channels.isEmpty {
            let open = channels.filter { $0.string("state") == "open" }.count
            let sent = channels.reduce(0) { $0 + delta($1, "messagesSent") }
            let received = channels.reduce(0) { $0 + delta($1, "messagesReceived") }
            let bitsSent = channels.reduce(0) { $0 + rate($1, "bytesSent") }
            let bitsReceived = channels.reduce(0) { $0 + rate($1, "bytesReceived") }
            lines.append(
                "DC \(open) open | (s)\(Int(sent)) msg \(Self.bitrate(bitsSent)) | (r)\(Int(received)) msg \(Self.bitrate(bitsReceived))"
            )
        }
        var lost: [String] = []
        if let vs { lost.append("VS \(Int(stats["RI-\(vs.string("ssrc") ?? "")"]?.number("packetsLost") ?? 0))") }
        if let vr { lost.append("VR \(Int(vr.number("packetsLost") ?? 0))") }
        if let asOut { lost.append("AS \(Int(stats["RI-\(asOut.string("ssrc") ?? "")"]?.number("packetsLost") ?? 0))") }
        if let arIn { lost.append("AR \(Int(arIn.number("packetsLost") ?? 0))") }
        if !lost.isEmpty { lines.append("Packets lost: " + lost.joined(separator: " | ")) }
        return lines.joined(separator: "\n")
    }

    /// `248Kbps` from 1000 bits/s up, `0bps` below.
    static func bitrate(_ bitsPerSecond: Double) -> String {
        bitsPerSecond >= 1000 ? "\(Int(bitsPerSecond / 1000))Kbps" : "\(Int(bitsPerSecond))bps"
    }
}
