import SwiftRTCCongestion
import SwiftRTCCore
import SwiftRTCRTP
import SwiftRTCSDP

/// Congestion control and bandwidth caps: what negotiation fixed (transport-cc or REMB), the
/// caps from the configuration and from the remote description's `b=AS`/`b=TIAS`, the
/// bandwidth lines of local descriptions, and the periodic feedback.
extension PeerConnection {
    /// Sets up the transport's congestion control from a completed negotiation: transport-cc
    /// when both sides have the extension and the feedback (as browsers negotiate it), else
    /// REMB when the peer takes `goog-remb`; the caps are the configured ones, lowered by the
    /// remote description's bandwidth lines.
    func configureCongestion(_ negotiation: Negotiation, remote: SessionDescription, transport: PeerTransport) {
        var setup = CongestionController.Setup()
        for media in negotiation.media where media.accepted && (media.kind == .audio || media.kind == .video) {
            let ids = Dictionary(
                media.extensions.filter { $0.id < 256 }.map { (UInt8($0.id), $0.uri) },
                uniquingKeysWith: { first, _ in first }
            )
            let section = remote.media.first { $0.mid == media.mid }.map(remote.resolved)
            let feedback = media.codecs.flatMap(\.feedback) + (section?.wildcardFeedback ?? [])
            let transportSequenceID = ids.first { $0.value == TransportSequenceNumber.uri }?.key
            if let transportSequenceID, feedback.contains(where: { $0.type == "transport-cc" }) {
                setup.transportSequenceID = setup.transportSequenceID ?? transportSequenceID
                setup.transportFeedback = true
            }
            if feedback.contains(where: { $0.type == "goog-remb" }) { setup.remb = true }
            if setup.absSendTimeID == nil { setup.absSendTimeID = ids.first { $0.value == AbsSendTime.uri }?.key }
        }
        // transport-cc wins over REMB when both are there (as in browsers).
        if setup.transportFeedback { setup.remb = false }
        transport.congestion.configure(setup, caps: bandwidthCaps(remote: remote))
        transport.feedbackSSRC.store(transceiverList.first?.sender.ssrc ?? 0, ordering: .relaxed)
    }

    /// The caps in bits/s: the configured ones and the remote description's (the most the
    /// peer wants to receive per media kind, `b=TIAS` else `b=AS`; session level: a total).
    func bandwidthCaps(remote: SessionDescription?) -> CongestionController.Caps {
        // Every cap in bit/s within 1...maxBitrate, whatever the configuration or the peer wrote.
        let maxKbps = RemoteInputLimits.maxBitrate / 1000
        var caps = CongestionController.Caps(
            audio: configuration.maxAudioBitrateKbps.map { min($0, maxKbps) * 1000 },
            video: configuration.maxVideoBitrateKbps.map { min($0, maxKbps) * 1000 }
        )
        guard let remote else { return caps }
        func limit(_ lines: [Bandwidth]) -> Int? {
            let stated: UInt64
            if let tias = lines.first(where: { $0.type.uppercased() == "TIAS" }), tias.value > 0 {
                stated = tias.value
            } else if let asLine = lines.first(where: { $0.type.uppercased() == "AS" }), asLine.value > 0 {
                stated = asLine.value.multipliedReportingOverflow(by: 1000).overflow ? .max : asLine.value * 1000
            } else {
                return nil
            }
            if stated > UInt64(RemoteInputLimits.maxBitrate) { limitHits.hit(.bitrate) }
            return Int(min(stated, UInt64(RemoteInputLimits.maxBitrate)))
        }
        caps.total = limit(remote.bandwidths)
        for section in remote.media where !section.isRejected {
            guard let remoteLimit = limit(section.bandwidths) else { continue }
            if section.kind == .audio { caps.audio = min(caps.audio ?? .max, remoteLimit) }
            if section.kind == .video { caps.video = min(caps.video ?? .max, remoteLimit) }
        }
        return caps
    }

    /// Writes the configured caps into a local description: `b=AS` (kbit/s) and `b=TIAS`
    /// (bit/s) in each audio or video section that is capped.
    func addBandwidthLines(to description: inout SessionDescription) {
        for i in description.media.indices where !description.media[i].isRejected {
            let kbps: Int?
            switch description.media[i].kind {
            case .audio: kbps = configuration.maxAudioBitrateKbps
            case .video: kbps = configuration.maxVideoBitrateKbps
            default: kbps = nil
            }
            guard let kbps, kbps > 0 else { continue }
            description.media[i].bandwidths.removeAll { ["AS", "TIAS"].contains($0.type.uppercased()) }
            description.media[i].bandwidths.append(Bandwidth(type: "AS", value: UInt64(kbps)))
            description.media[i].bandwidths.append(Bandwidth(type: "TIAS", value: UInt64(kbps) * 1000))
        }
    }

}
