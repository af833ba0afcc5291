import Foundation
import Testing

/// One bot report (callbot's `--report`, or an Interop peer's), read field by field: the
/// issue 8 figures (the shared report field names of issue 8) may be missing or null, and a test must
/// then fail naming the field, not crash.
struct CallReport: Sendable {
    /// Who wrote it, for messages: "callbot whip-server", "chromium whip-server"...
    let who: String
    let url: URL
    private let json: [String: any Sendable]
    /// callbot only: the receive lines of the last statsString it printed (`VR`, `AR` with the
    /// expand rate, `Packets lost:`), figures that exist before the report fields do.
    var receiveStats: String?

    init(who: String, url: URL) throws {
        self.who = who
        self.url = url
        guard let data = try? Data(contentsOf: url) else { throw FaultFailure("\(who) wrote no report at \(url.path)") }
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw FaultFailure("\(who)'s report at \(url.path) is not a JSON object")
        }
        json = Self.sendable(object) as? [String: any Sendable] ?? [:]
    }

    private static func sendable(_ value: Any) -> any Sendable {
        switch value {
        case let object as [String: Any]: object.mapValues(sendable)
        case let array as [Any]: array.map(sendable)
        case let bool as Bool: bool ? 1.0 : 0.0
        case let int as Int: Double(int)
        case let double as Double: double
        case let number as NSNumber: number.doubleValue
        case let string as String: string
        default: Optional<Double>.none
        }
    }

    /// A number at a dotted path (`video.freeze_max_ms`); nil when missing or null.
    func number(_ path: String) -> Double? {
        var value: (any Sendable)? = json
        for key in path.split(separator: ".") { value = (value as? [String: any Sendable])?[String(key)] }
        return value as? Double
    }

    var connected: Bool { number("connected") == 1 }
    var errors: [String] { (json["errors"] as? [any Sendable])?.compactMap { $0 as? String } ?? [] }

    /// The number at `path`, or a recorded issue that names the field and the report.
    func required(_ path: String, _ note: String = "", sourceLocation: SourceLocation = #_sourceLocation) -> Double? {
        if let value = number(path) { return value }
        Issue.record(
            "\(who)'s report has no `\(path)` (missing or null)\(note.isEmpty ? "" : "; \(note)"): \(url.path)",
            sourceLocation: sourceLocation
        )
        return nil
    }

    /// `path` formatted for a figures line (`null` when missing).
    func text(_ path: String, digits: Int = 0) -> String {
        guard let value = number(path) else { return "null" }
        return String(format: "%.\(digits)f", value)
    }
}

/// What a condition must reach, per direction of media.
struct Thresholds: Sendable {
    /// Receiver's video `frames_decoded` over the sender's `frames_sent`.
    var minDecodedShare: Double
    /// Receiver's `video.freeze_max_ms`.
    var maxFreezeMs: Double
    /// Receiver's `audio.concealment_rate`, for the nominal loss. Audio has no retransmission:
    /// concealment follows the packets this stream actually lost, a random draw around the
    /// nominal share (at 5%, 500 packets lose 25 ± 5), so when the draw was unlucky the bound
    /// is that stream's measured loss plus ``concealmentOverLoss``.
    var maxConcealment: Double
    /// Under a rate limit: the sender's `bandwidth_estimate_kbps` at most this.
    var maxEstimateKbps: Double?
}

/// Media from `sender` to `receiver`: the figures of that direction.
struct MediaDirection: Sendable {
    /// Concealment allowed above the audio stream's own measured packet loss (Opus PLC
    /// stretches a little around each loss; in-band FEC takes some back).
    static let concealmentOverLoss = 0.02
    let sender: CallReport
    let receiver: CallReport

    var label: String {
        "\(sender.who.split(separator: " ").first ?? "?")->\(receiver.who.split(separator: " ").first ?? "?")"
    }

    /// Under a rate limit the estimate must also not collapse: at least this much.
    static let minEstimateKbps = 100.0

    var decodedShare: Double? {
        guard let decoded = receiver.number("video.frames_decoded"), let sent = sender.number("video.frames_sent"),
            sent > 0
        else { return nil }
        return decoded / sent
    }

    /// One line of figures (the issue 8 report field names).
    var figures: String {
        let share = decodedShare.map { String(format: "%.1f%%", $0 * 100) } ?? "null"
        return
            "\(sender.who) -> \(receiver.who): video frames_decoded=\(receiver.text("video.frames_decoded"))/frames_sent=\(sender.text("video.frames_sent")) (\(share))"
            + " freeze_max_ms=\(receiver.text("video.freeze_max_ms")) packets_lost=\(receiver.text("video.packets_lost"))"
            + " nack_sent=\(receiver.text("video.nack_sent")) nack_received=\(sender.text("video.nack_received"))"
            + " retransmitted_packets_sent=\(sender.text("video.retransmitted_packets_sent"))"
            + " pli_sent=\(receiver.text("video.pli_sent")) fir_sent=\(receiver.text("video.fir_sent"))"
            + " \(receiver.text("video.width"))x\(receiver.text("video.height"))"
            + " | audio concealment_rate=\(receiver.text("audio.concealment_rate", digits: 3)) jitter_buffer_ms=\(receiver.text("audio.jitter_buffer_ms"))"
            + " packets_lost=\(receiver.text("audio.packets_lost")) fec_recovered=\(receiver.text("audio.fec_recovered"))"
            + " | sender bandwidth_estimate_kbps=\(sender.text("bandwidth_estimate_kbps")) target_kbps=\(sender.text("video.target_kbps"))"
            + (receiver.receiveStats.map { " | receiver statsString: \($0)" } ?? "")
    }

    /// Asserts `thresholds` on this direction; a missing figure fails naming its field.
    func expect(_ thresholds: Thresholds, condition: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let context = "\(condition), \(label)"
        for report in [sender, receiver] {
            let (connected, errors) = (report.connected, report.errors)
            #expect(connected, "\(context): \(report.who) did not connect: \(errors)", sourceLocation: sourceLocation)
            #expect(errors.isEmpty, "\(context): \(report.who) errors: \(errors)", sourceLocation: sourceLocation)
        }
        if let decoded = receiver.required("video.frames_decoded", sourceLocation: sourceLocation),
            let sent = sender.required(
                "video.frames_sent",
                "frames the encoder produced and sent",
                sourceLocation: sourceLocation
            )
        {
            #expect(
                sent > 0 && decoded / sent >= thresholds.minDecodedShare,
                "\(context): \(Int(decoded)) of \(Int(sent)) video frames decoded, below \(Int(thresholds.minDecodedShare * 100))%",
                sourceLocation: sourceLocation
            )
        }
        if let freeze = receiver.required("video.freeze_max_ms", sourceLocation: sourceLocation) {
            #expect(
                freeze < thresholds.maxFreezeMs,
                "\(context): longest video freeze \(Int(freeze)) ms, not under \(Int(thresholds.maxFreezeMs)) ms",
                sourceLocation: sourceLocation
            )
        }
        if let concealment = receiver.required("audio.concealment_rate", sourceLocation: sourceLocation) {
            let lost = max(0, receiver.number("audio.packets_lost") ?? 0),
                received = receiver.number("audio.rtp_packets_received") ?? 0
            let measuredLoss = lost + received > 0 ? lost / (lost + received) : 0
            let bound = max(thresholds.maxConcealment, measuredLoss + Self.concealmentOverLoss)
            #expect(
                concealment < bound,
                "\(context): audio concealment rate \(concealment), not under \(bound) (nominal \(thresholds.maxConcealment), this stream lost \(String(format: "%.3f", measuredLoss)) of its packets)",
                sourceLocation: sourceLocation
            )
        }
        if let limit = thresholds.maxEstimateKbps,
            let estimate = sender.required("bandwidth_estimate_kbps", sourceLocation: sourceLocation)
        {
            #expect(
                estimate >= Self.minEstimateKbps && estimate <= limit,
                "\(context): \(sender.who)'s bandwidth estimate \(Int(estimate)) kbit/s is not in [\(Int(Self.minEstimateKbps)), \(Int(limit))]",
                sourceLocation: sourceLocation
            )
        }
    }
}
