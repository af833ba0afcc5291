import Foundation
import Synchronization
import TestScheduling
import Testing

@testable import SwiftRTCPeer

/// What a lossy network in front of one side loses (through a ``UDPRelay``): a share of the
/// incoming video (media and RTX alike) and audio datagrams, pseudo-randomly with a fixed
/// seed, or every video datagram during an outage. Works on the SRTP datagrams: the RTP
/// header (payload type) is in the clear; STUN and RTCP are never mistaken for them.
final class LossyLink: Sendable {
    struct State {
        var seed: UInt32 = 0x2545_F491
        var videoLoss = 0.0
        var audioLoss = 0.0
        var outage = false
        var rtxOutage = false
        var dropped = 0
        /// VP8 media datagrams (payload type 96, not RTX) among `dropped`.
        var videoDropped = 0
    }

    let state = Mutex(State())
    let videoPayloadTypes: Set<UInt8> = [96, 97]
    let audioPayloadType: UInt8 = 111

    func drops(_ datagram: UnsafeRawBufferPointer) -> Bool {
        // SRTP only (RFC 7983: first byte 128-191; RFC 5761: RTCP types 192-223 are not RTP).
        guard datagram.count >= 12, (128...191).contains(datagram[0]), !(192...223).contains(datagram[1]) else {
            return false
        }
        let payloadType = datagram[1] & 0x7F
        return state.withLock { s in
            s.seed = s.seed &* 1_103_515_245 &+ 12345
            let draw = Double(s.seed >> 16 & 0x7FFF) / 32768
            let video = videoPayloadTypes.contains(payloadType)
            let drop =
                (video && (s.outage || draw < s.videoLoss)) || (payloadType == 97 && s.rtxOutage)
                || (payloadType == audioPayloadType && draw < s.audioLoss)
            if drop { s.dropped += 1 }
            if drop && payloadType == 96 { s.videoDropped += 1 }
            return drop
        }
    }
}

/// Loss recovery end to end: two PeerConnections over loopback, the answerer's receive path
/// losing 10% of the offerer's video and audio. With NACK negotiated (RTX), the answerer asks
/// for the lost packets, the offerer resends them as RTX, and nearly every frame decodes; an
/// outage longer than NACK's patience ends with a PLI and a keyframe. Without NACK (removed
/// from the offer), nothing is resent and frames are lost.
@Suite(.serialized, .realTime) struct LossRecoveryCallTests {
    struct Figures {
        var framesSent = 0.0
        var framesDecoded = 0.0
        var share: Double { framesSent > 0 ? framesDecoded / framesSent : 0 }
    }

    static func number(_ report: StatsReport, _ type: StatsReport.StatsType, _ kind: String, _ name: String) -> Double {
        report.first(type, kind: kind)?.number(name) ?? 0
    }

    @Test(arguments: [true, false])
    func tenPercentVideoLoss(nack: Bool) async throws {
        let munge: @Sendable (String) -> String = { sdp in
            guard !nack else { return sdp }
            return sdp.components(separatedBy: "\r\n").filter { !$0.hasSuffix(" nack") && !$0.hasSuffix(" nack pli") }
                .joined(separator: "\r\n")
        }
        let relay = try UDPRelay()
        let call = try await LoopbackCall.start(
            width: 320,
            height: 240,
            framesPerSecond: 20,
            relay: relay,
            munge: munge
        )
        defer {
            Task {
                await call.close()
                relay.stop()
            }
        }
        try #require(call.connectedAfter != nil)
        let media = await call.waitForMedia()
        try #require(media)
        let link = LossyLink()
        relay.dropping { link.drops($0) }

        // Loss phase: 10% of video and audio lost for 3 s.
        let before = (await call.offerer.stats(), await call.answerer.stats())
        link.state.withLock {
            $0.videoLoss = 0.1
            $0.audioLoss = 0.1
        }
        try await Task.sleep(for: .seconds(3))
        link.state.withLock {
            $0.videoLoss = 0
            $0.audioLoss = 0
        }
        try await Task.sleep(for: .milliseconds(300))  // what was in flight lands
        let after = (await call.offerer.stats(), await call.answerer.stats())
        /// The change over the loss phase, on the offerer (`offerer: true`) or the answerer.
        func delta(_ offerer: Bool, _ type: StatsReport.StatsType, _ kind: String, _ name: String) -> Double {
            offerer
                ? Self.number(after.0, type, kind, name) - Self.number(before.0, type, kind, name)
                : Self.number(after.1, type, kind, name) - Self.number(before.1, type, kind, name)
        }
        let figures = Figures(
            framesSent: delta(true, .outboundRTP, "video", "framesSent"),
            framesDecoded: delta(false, .inboundRTP, "video", "framesDecoded")
        )
        let nacksSent = delta(false, .inboundRTP, "video", "nackCount")
        let nacksReceived = delta(true, .outboundRTP, "video", "nackCount")
        let resent = delta(true, .outboundRTP, "video", "retransmittedPacketsSent")
        let repaired = delta(false, .inboundRTP, "video", "retransmittedPacketsReceived")
        let lost = delta(false, .inboundRTP, "video", "packetsLost")
        let received = delta(false, .inboundRTP, "video", "packetsReceived")
        let fec = delta(false, .inboundRTP, "audio", "fecPacketsReceived")
        let concealed =
            delta(false, .inboundRTP, "audio", "concealedSamples")
            / max(1, delta(false, .inboundRTP, "audio", "totalSamplesReceived"))
        let freeze = Self.number(after.1, .inboundRTP, "video", "maxFreezeDuration")
        print(
            "LossRecovery nack=\(nack): video frames sent \(Int(figures.framesSent)) decoded \(Int(figures.framesDecoded)) share \(String(format: "%.3f", figures.share)); packets received \(Int(received)) lost \(Int(lost)) dropped \(link.state.withLock { $0.dropped }); NACKs sent \(Int(nacksSent)) received \(Int(nacksReceived)); resent \(Int(resent)) repaired \(Int(repaired)); PLI sent \(Int(delta(false, .inboundRTP, "video", "pliCount"))) FIR sent \(Int(delta(false, .inboundRTP, "video", "firCount"))); max freeze \(Int(freeze * 1000)) ms; audio FEC recovered \(Int(fec)) concealment \(String(format: "%.3f", concealed))"
        )
        #expect(figures.framesSent > 20)
        if nack {
            #expect(nacksSent > 0 && nacksReceived > 0)
            #expect(resent > 0 && repaired > 0 && repaired <= resent)
            #expect(figures.share >= 0.9, "decoded \(figures.framesDecoded) of \(figures.framesSent) frames with NACK")
            // After repair, far fewer packets stay lost than were dropped.
            #expect(lost < received * 0.05)
            #expect(fec > 0, "Opus in-band FEC recovered nothing")
        } else {
            #expect(nacksSent == 0 && resent == 0 && repaired == 0)
            // Nothing repaired: every video packet the link dropped stays lost. (Compared with
            // the drops themselves: at one packet per frame, 10% of ~70 packets is too few
            // for a fixed share.)
            let videoDropped = Double(link.state.withLock { $0.videoDropped })
            #expect(videoDropped > 0 && abs(lost - videoDropped) <= 1, "lost \(lost), video dropped \(videoDropped)")
        }
        #expect(concealed > 0 && concealed < 0.2)
        // The adaptive jitter buffer: audio waits at least its 20 ms floor, far below its cap.
        let emitted = delta(false, .inboundRTP, "audio", "jitterBufferEmittedCount")
        let audioDelay = delta(false, .inboundRTP, "audio", "jitterBufferDelay") / max(1, emitted)
        #expect(
            emitted > 50 && audioDelay >= 0.015 && audioDelay < 0.3,
            "audio jitter buffer delay \(audioDelay) s over \(emitted) frames"
        )
        print(await call.answerer.statsString())

        guard nack else { return }
        // Outage: all video lost for 0.5 s, and every retransmission for 1.5 s: NACK cannot
        // repair, the answerer gives up the gap, holds the delta frames after it back, asks
        // for a keyframe, the offerer's encoder makes one, and decoding resumes.
        let keyframesBefore = (
            Self.number(after.0, .outboundRTP, "video", "keyFramesEncoded"),
            Self.number(after.1, .inboundRTP, "video", "keyFramesDecoded")
        )
        let pliBefore = (
            Self.number(after.1, .inboundRTP, "video", "pliCount"),
            Self.number(after.0, .outboundRTP, "video", "pliCount")
        )
        link.state.withLock {
            $0.outage = true
            $0.rtxOutage = true
        }
        try await Task.sleep(for: .milliseconds(500))
        link.state.withLock { $0.outage = false }
        try await Task.sleep(for: .milliseconds(1000))
        link.state.withLock { $0.rtxOutage = false }
        let recovered = await LoopbackCall.wait(timeout: .seconds(10)) {
            let a = await call.answerer.stats()
            return Self.number(a, .inboundRTP, "video", "keyFramesDecoded") > keyframesBefore.1
        }
        let end = (await call.offerer.stats(), await call.answerer.stats())
        let decodedAtRecovery = Self.number(end.1, .inboundRTP, "video", "framesDecoded")
        try await Task.sleep(for: .milliseconds(500))
        let decodedLater = Self.number(await call.answerer.stats(), .inboundRTP, "video", "framesDecoded")
        print(
            "LossRecovery outage: PLI sent \(Int(Self.number(end.1, .inboundRTP, "video", "pliCount") - pliBefore.0)) received \(Int(Self.number(end.0, .outboundRTP, "video", "pliCount") - pliBefore.1)); keyframes encoded +\(Int(Self.number(end.0, .outboundRTP, "video", "keyFramesEncoded") - keyframesBefore.0)) decoded +\(Int(Self.number(end.1, .inboundRTP, "video", "keyFramesDecoded") - keyframesBefore.1))"
        )
        #expect(recovered, "no keyframe decoded after the outage")
        #expect(Self.number(end.1, .inboundRTP, "video", "pliCount") > pliBefore.0)
        #expect(Self.number(end.0, .outboundRTP, "video", "pliCount") > pliBefore.1)
        #expect(Self.number(end.0, .outboundRTP, "video", "keyFramesEncoded") > keyframesBefore.0)
        #expect(decodedLater > decodedAtRecovery)
    }
}
