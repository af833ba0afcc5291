import Foundation
import SwiftRTCCongestion
import SwiftRTCRTP
import SwiftRTCSDP
import Testing

@testable import SwiftRTCPeer

/// The transport's congestion controller without a network: stamping, transport-cc and REMB
/// feedback between two controllers, the audio/video shares within caps, and the caps read
/// from remote descriptions.
@Suite struct CongestionControllerTests {
    /// An RTP packet of `size` bytes with a transport-wide sequence number placeholder (id 3)
    /// and abs-send-time (id 2) for `time` seconds.
    static func packet(size: Int, sequence: UInt16, time: Double) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size + 64)
        let length = try bytes.withUnsafeMutableBytes { buffer in
            var writer = try RTPPacketWriter(
                into: buffer,
                header: RTPHeader(payloadType: 96, sequenceNumber: sequence, timestamp: 0, ssrc: 0x1234)
            )
            try writer.appendExtension(AbsSendTime(value: UInt32(time * Double(1 << 18)) & 0xFF_FFFF), id: 2)
            try writer.appendExtension(TransportSequenceNumber(value: 0), id: 3)
            let payload = [UInt8](repeating: 0xAB, count: size - 24)
            try payload.withUnsafeBytes { try writer.appendPayload($0) }
            return try writer.finish()
        }
        return Array(bytes[..<length])
    }

    static let transportCC = CongestionController.Setup(
        transportSequenceID: 3,
        absSendTimeID: 2,
        transportFeedback: true,
        remb: false
    )
    static let remb = CongestionController.Setup(
        transportSequenceID: nil,
        absSendTimeID: 2,
        transportFeedback: false,
        remb: true
    )

    /// Stamping writes consecutive transport-wide numbers into the packets, as sent.
    @Test func stampsConsecutiveNumbers() throws {
        let controller = CongestionController()
        controller.configure(Self.transportCC, caps: .init())
        var numbers: [UInt16] = []
        for i in 0..<3 {
            var bytes = try Self.packet(size: 200, sequence: UInt16(i), time: 0)
            let count = bytes.count
            bytes.withUnsafeMutableBytes { controller.stamp($0, length: count) }
            let value = try bytes.withRTP { try $0.extensionValue(TransportSequenceNumber.self, id: 3)?.value }
            numbers.append(try #require(value))
        }
        #expect(numbers[1] == numbers[0] &+ 1 && numbers[2] == numbers[1] &+ 1)
    }

    /// At the offset its writer reported, a packet is stamped as if parsed (the send path);
    /// an offset outside the packet's header stamps nothing.
    @Test func stampsAtTheWritersOffsetAsIfParsed() throws {
        let controller = CongestionController()
        controller.configure(Self.transportCC, caps: .init())
        // In the test packet, abs-send-time (id 2) comes first: header 12, block header 4,
        // element header 1 + 3 bytes, then the transport-wide number's header 1.
        let offset = 12 + 4 + 4 + 1
        for i in 0..<3 {
            var parsed = try Self.packet(size: 200, sequence: UInt16(i), time: 0), told = parsed
            let count = parsed.count
            parsed.withUnsafeMutableBytes { controller.stamp($0, length: count) }
            told.withUnsafeMutableBytes { controller.stamp($0, length: count, transportSequenceAt: offset) }
            let first = try parsed.withRTP { try $0.extensionValue(TransportSequenceNumber.self, id: 3)?.value }
            let second = try told.withRTP { try $0.extensionValue(TransportSequenceNumber.self, id: 3)?.value }
            #expect(second == first.map { $0 &+ 1 })
            #expect(parsed[..<offset] == told[..<offset] && parsed[(offset + 2)...] == told[(offset + 2)...])
        }
        var packet = try Self.packet(size: 200, sequence: 9, time: 0)
        let before = packet, count = packet.count
        packet.withUnsafeMutableBytes { controller.stamp($0, length: count, transportSequenceAt: count - 1) }
        packet.withUnsafeMutableBytes { controller.stamp($0, length: count, transportSequenceAt: 4) }
        #expect(packet == before)
    }

    /// Sender → receiver → transport-cc → sender: the estimate moves from its start.
    @Test func transportFeedbackLoop() throws {
        let sender = CongestionController(), receiver = CongestionController()
        sender.configure(Self.transportCC, caps: .init())
        receiver.configure(Self.transportCC, caps: .init())
        let start = sender.availableOutgoingBitrate
        var feedbacks = 0
        // 2 s of 1200-byte packets every 8 ms (1.2 Mbit/s), arriving 20 ms later, feedback asked
        // for every 104 ms (at 1.2 Mbit/s its interval is the shortest, 100 ms).
        for i in 0..<250 {
            var bytes = try Self.packet(size: 1200, sequence: UInt16(i), time: Double(i) * 0.008)
            let count = bytes.count
            bytes.withUnsafeMutableBytes { sender.stamp($0, length: count) }
            let arrival = 100 + Double(i) * 0.008 + 0.02
            try bytes.withRTP { receiver.received($0, arrival: arrival) }
            if i % 13 == 12 {
                for packet in receiver.makeFeedback(senderSSRC: 9, now: arrival) {
                    guard case .transportFeedback(let feedback) = packet else { continue }
                    sender.received(feedback)
                    feedbacks += 1
                }
            }
        }
        #expect(feedbacks >= 15)
        #expect(sender.availableOutgoingBitrate != start)
        #expect(sender.targetBitrate(for: .video) >= BitrateAllocation.minimumVideoBitrate)
        #expect(
            sender.targetBitrate(for: .video) + sender.targetBitrate(for: .audio) >= sender.availableOutgoingBitrate
        )
    }

    /// A goog-remb peer gets REMB with our receive-side estimate; a REMB received bounds the
    /// send-side estimate.
    @Test func rembBothWays() throws {
        let receiver = CongestionController()
        receiver.configure(Self.remb, caps: .init())
        var rembs: [ReceiverEstimatedMaximumBitrate] = []
        for i in 0..<200 {
            let bytes = try Self.packet(size: 1000, sequence: UInt16(i), time: Double(i) * 0.01)
            try bytes.withRTP { receiver.received($0, arrival: Double(i) * 0.01) }
            if i % 10 == 9 {
                for case .remb(let remb) in receiver.makeFeedback(senderSSRC: 9, now: Double(i) * 0.01) {
                    rembs.append(remb)
                }
            }
        }
        #expect(!rembs.isEmpty && rembs.count <= 3)
        #expect(rembs.allSatisfy { $0.ssrcs == [0x1234] && $0.bitrate > 0 })
        let sender = CongestionController()
        sender.configure(Self.transportCC, caps: .init())
        sender.received(ReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: 150_000, ssrcs: [1]))
        #expect(sender.availableOutgoingBitrate == 150_000)
        #expect(sender.targetBitrate(for: .audio) == 32_000 && sender.targetBitrate(for: .video) == 118_000)
    }

    /// Caps bound the shares: audio to its cap, video to its cap.
    @Test func capsBoundTheShares() {
        let controller = CongestionController()
        controller.configure(Self.transportCC, caps: .init(audio: 16_000, video: 100_000))
        #expect(controller.targetBitrate(for: .audio) == 16_000)
        #expect(controller.targetBitrate(for: .video) == 100_000)
        #expect(controller.availableOutgoingBitrate == 116_000)
    }

    /// `b=TIAS` (bit/s) wins over `b=AS` (kbit/s) per section; session-level `b=AS` is a total;
    /// configured caps stay when lower.
    @Test func capsFromTheRemoteDescription() async throws {
        var configuration = LoopbackCall.configuration
        configuration.maxAudioBitrateKbps = 20
        let pc = try PeerConnection(configuration: configuration)
        let sdp = """
            v=0\r
            o=- 1 1 IN IP4 127.0.0.1\r
            s=-\r
            b=AS:2000\r
            t=0 0\r
            m=audio 9 UDP/TLS/RTP/SAVPF 111\r
            c=IN IP4 0.0.0.0\r
            b=AS:64\r
            a=mid:0\r
            a=rtpmap:111 opus/48000/2\r
            m=video 9 UDP/TLS/RTP/SAVPF 96\r
            c=IN IP4 0.0.0.0\r
            b=AS:500\r
            b=TIAS:450000\r
            a=mid:1\r
            a=rtpmap:96 VP8/90000\r

            """
        let remote = try SessionDescription(parsing: sdp)
        let caps = await pc.bandwidthCaps(remote: remote)
        #expect(caps.audio == 20_000)
        #expect(caps.video == 450_000)
        #expect(caps.total == 2_000_000)
        await pc.close()
    }
}

extension Array where Element == UInt8 {
    /// Parses the bytes as RTP and runs `body` on the view.
    fileprivate func withRTP<R>(_ body: (RTPPacket) throws -> R) throws -> R {
        try withUnsafeBytes { try body(try RTPPacket(parsing: $0)) }
    }
}
