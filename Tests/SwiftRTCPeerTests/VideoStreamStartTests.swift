import SwiftRTCCodecs
import SwiftRTCRTP
import SwiftRTCReceive
import Testing

@testable import SwiftRTCPeer

/// The start of a received video stream. The jitter buffer holds a stream's first packets for
/// its wait (250 ms with NACK) in case earlier ones come late. A stream that begins with a
/// keyframe's first packet needs nothing earlier and plays at once. A stream whose first
/// packet was lost asks for a keyframe at once. Before, it asked only after the wait, which
/// cost about ten frames at 30 fps: one call in ten of the 5%-loss network test lost its first
/// packet, and with another loss later dropped under 95% of frames decoded.
@Suite struct VideoStreamStartTests {
    /// A real 320×240 keyframe in RTP packets (several: the first one matters).
    static func keyframePackets(firstSequence: UInt16) throws -> [[UInt8]] {
        let encoder = try VP8Encoder(configuration: .init(width: 320, height: 240, targetBitrate: 2_000_000))
        var picture = VideoFrame(width: 320, height: 240)
        for i in picture.y.indices { picture.y[i] = UInt8(truncatingIfNeeded: i &* 7919 >> 3) }
        let frame = try #require(try encoder.encode(picture))
        #expect(frame.isKeyframe)
        var packetizer = VP8Packetizer(
            ssrc: ReceivePathLimitsTests.mediaSSRC,
            payloadType: 96,
            sequenceNumber: firstSequence
        )
        var buffer = [UInt8](repeating: 0, count: 1500)
        var packets: [[UInt8]] = []
        _ = try frame.data.withUnsafeBytes { data in
            try buffer.withUnsafeMutableBytes { out in
                try packetizer.packetize(data, timestamp: 9000, into: out) { packets.append(Array($0)) }
            }
        }
        try #require(packets.count >= 3, "a noisy keyframe spans several packets")
        return packets
    }

    static func requestsKeyframe(_ feedback: [RTCPPacket]) -> Bool {
        feedback.contains { if case .pictureLossIndication = $0 { true } else { false } }
    }

    /// A whole keyframe from its first packet: assembled at once, no wait and no PLI.
    @Test func aStreamStartingWithAKeyframePlaysAtOnce() throws {
        let assembler = FrameAssembler(codec: .vp8, maximumWait: 0.25)
        for packet in try Self.keyframePackets(firstSequence: 500) {
            packet.withUnsafeBytes { _ = assembler.insert($0, arrival: 1.0) }
        }
        let frame = assembler.nextFrame(now: 1.0)
        #expect(frame?.isKeyframe == true, "the first keyframe leaves when it is complete, not 250 ms later")
        #expect(!assembler.startsWithoutKeyframe)
    }

    /// The keyframe's first packet lost: the receiver asks for a keyframe on the next feedback
    /// tick (10 ms later), where it asked 250 ms later before.
    @Test func aLostFirstPacketAsksForAKeyframeAtOnce() throws {
        let receiver = ReceivePathLimitsTests.receiver()
        defer { receiver.stop() }
        for packet in try Self.keyframePackets(firstSequence: 500).dropFirst() {
            try ReceivePathLimitsTests.receive(receiver, packet, at: 1.0)
        }
        #expect(receiver.path.withLock { $0.assembler?.startsWithoutKeyframe } == true)
        #expect(Self.requestsKeyframe(receiver.feedback(now: 1.01, roundTripTime: 0.001, compoundCNAME: nil)))
    }

    /// Only reordered: the first packet comes within the wait, after the second. The frame is
    /// whole; the keyframe asked for in between is the price of not waiting.
    @Test func aLateFirstPacketStillCompletesTheFrame() throws {
        let packets = try Self.keyframePackets(firstSequence: 65534)  // and across the wrap
        let assembler = FrameAssembler(codec: .vp8, maximumWait: 0.25)
        packets[1].withUnsafeBytes { _ = assembler.insert($0, arrival: 1.0) }
        #expect(assembler.startsWithoutKeyframe)
        packets[0].withUnsafeBytes { _ = assembler.insert($0, arrival: 1.01) }
        #expect(!assembler.startsWithoutKeyframe, "the start moved back to the keyframe's first packet")
        for packet in packets.dropFirst(2) { packet.withUnsafeBytes { _ = assembler.insert($0, arrival: 1.02) } }
        let frame = assembler.nextFrame(now: 1.02)
        #expect(frame?.isKeyframe == true)
        #expect(assembler.jitterBuffer.lostPackets == 0 && assembler.droppedFrames == 0)
    }
}
