import Foundation
import SwiftRTCCongestion
import SwiftRTCCore
import SwiftRTCRTP
import SwiftRTCSDP
import Testing

@testable import SwiftRTCPeer

/// Numbers a hostile peer controls, fed to a connection's congestion control: each is
/// clamped where it enters (``RemoteInputLimits``) and counted, and nothing traps.
@Suite struct HostileNumbersTests {
    /// The offer of the WHIP POST that stopped `callbot whip-server`: `b=AS` of 9.2·10^15
    /// kbit/s on the video section (times 1000, then added to the audio cap, it overflowed).
    @Test func hugeBandwidthLinesAreClampedAndCounted() async throws {
        let pc = try PeerConnection(configuration: LoopbackCall.configuration)
        let sdp = """
            v=0\r
            o=- 1 1 IN IP4 127.0.0.1\r
            s=-\r
            b=AS:9223372036854776\r
            t=0 0\r
            m=audio 9 UDP/TLS/RTP/SAVPF 111\r
            c=IN IP4 0.0.0.0\r
            b=TIAS:18446744073709551615\r
            a=mid:0\r
            a=rtpmap:111 opus/48000/2\r
            m=video 9 UDP/TLS/RTP/SAVPF 96\r
            c=IN IP4 0.0.0.0\r
            b=AS:9223372036854776\r
            a=mid:1\r
            a=rtpmap:96 VP8/90000\r

            """
        let remote = try SessionDescription(parsing: sdp)
        let caps = await pc.bandwidthCaps(remote: remote)
        #expect(caps.audio == RemoteInputLimits.maxBitrate)
        #expect(caps.video == RemoteInputLimits.maxBitrate)
        #expect(caps.total == RemoteInputLimits.maxBitrate)
        // Session-level b=AS and the video section's, in kbit/s, both past the limit in bit/s.
        #expect(pc.limitHits.count(.bitrate) == 2)
        let controller = CongestionController(limitHits: pc.limitHits)
        controller.configure(CongestionControllerTests.transportCC, caps: caps)
        #expect(controller.availableOutgoingBitrate <= RemoteInputLimits.maxBitrate)
        await pc.close()
    }

    /// A configured cap larger than any link (a bot's `--max-video-kbps`) is clamped too.
    @Test func hugeConfiguredCapsAreClamped() async throws {
        var configuration = LoopbackCall.configuration
        configuration.maxAudioBitrateKbps = .max
        configuration.maxVideoBitrateKbps = .max
        let pc = try PeerConnection(configuration: configuration)
        let caps = await pc.bandwidthCaps(remote: nil)
        #expect(caps.audio == RemoteInputLimits.maxBitrate && caps.video == RemoteInputLimits.maxBitrate)
        await pc.close()
    }

    /// One REMB with exponent 63 (read as the largest value), then a receiver report: the
    /// loss-based part limited itself to `remoteEstimate * 3 / 2` and trapped.
    @Test func rembWithAHugeExponentThenAReport() throws {
        let limitHits = LimitHits()
        let controller = CongestionController(limitHits: limitHits)
        controller.configure(CongestionControllerTests.remb, caps: .init())
        // REMB: V=2 FMT=15 PT=206, length 5; sender, media 0, "REMB", 1 SSRC, exponent 63.
        let bytes: [UInt8] = [
            0x8F, 206, 0, 5, 0, 0, 0, 1, 0, 0, 0, 0, 0x52, 0x45, 0x4D, 0x42,
            1, 0xFF, 0xFF, 0xFF, 0, 0, 0x12, 0x34,
        ]
        let packet = try bytes.withUnsafeBytes { raw in
            var iterator = RTCPCompoundIterator(raw)
            return try RTCPPacket(try #require(try iterator.next()))
        }
        guard case .remb(let remb) = packet else {
            Issue.record("not parsed as REMB: \(packet)")
            return
        }
        controller.received(remb)
        controller.receivedReport(fractionLost: 0, roundTripTime: 0.05)
        controller.receivedReport(fractionLost: 0.2, roundTripTime: 0.05)
        #expect(limitHits.count(.bitrate) == 1)
        #expect(controller.availableOutgoingBitrate <= RemoteInputLimits.maxBitrate)
        #expect(controller.availableOutgoingBitrate >= SendSideBandwidthEstimator.defaultMinimumBitrate)
    }

    /// Trickled candidates beyond ``RemoteInputLimits/maxRemoteCandidates``: each would be
    /// a libnice remote candidate with its connectivity checks; dropped and counted.
    @Test func trickledCandidatesAreBounded() async throws {
        let offerer = try PeerConnection(configuration: LoopbackCall.configuration)
        let answerer = try PeerConnection(configuration: LoopbackCall.configuration)
        try await offerer.addTrack(MediaStreamTrack(kind: .audio))
        let offer = try await offerer.createOffer()
        try await answerer.setRemoteDescription(offer)
        let extra = 50
        for port in 0..<RemoteInputLimits.maxRemoteCandidates + extra {
            let line = "candidate:\(port) 1 udp 2122260223 127.0.0.1 \(20_000 + port) typ host"
            try await answerer.addIceCandidate(IceCandidateInit(candidate: line, sdpMid: "0", sdpMLineIndex: 0))
        }
        // The offer's own candidates (gathered before it was made) count too.
        let inOffer = Int64(offer.sdp.components(separatedBy: "a=candidate:").count - 1)
        #expect((Int64(extra)...Int64(extra) + inOffer).contains(answerer.limitHits.count(.remoteCandidates)))
        await offerer.close()
        await answerer.close()
    }

    /// An offer with 500 sections, as a stranger may POST: refused before any transceiver,
    /// transport or candidate is made for it, and the connection still takes a good offer.
    @Test func offersWithHundredsOfSectionsAreRefused() async throws {
        let offerer = try PeerConnection(configuration: LoopbackCall.configuration)
        let answerer = try PeerConnection(configuration: LoopbackCall.configuration)
        try await offerer.addTrack(MediaStreamTrack(kind: .audio))
        let offer = try await offerer.createOffer()
        // The audio section repeated with new mids: everything but the count is honest.
        let parts = offer.sdp.components(separatedBy: "m=audio")
        let section = "m=audio" + parts[1]
        let sections = (0..<500).map { section.replacingOccurrences(of: "a=mid:0", with: "a=mid:\($0)") }.joined()
        let hostile = SignalingDescription(
            type: .offer,
            sdp: parts[0].replacingOccurrences(of: "a=group:BUNDLE 0", with: "a=group:BUNDLE") + sections
        )
        await #expect(throws: PeerConnectionError.self) { try await answerer.setRemoteDescription(hostile) }
        #expect(await answerer.transceivers.isEmpty)
        try await answerer.setRemoteDescription(offer)
        #expect(await answerer.transceivers.count == 1)
        await offerer.close()
        await answerer.close()
    }
}
