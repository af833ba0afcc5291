import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCRTP
import Testing

@testable import SwiftRTCPeer

/// Issue 17 on a receiver and a sender without a network: RTX original sequence numbers far
/// from the stream are dropped and counted, keyframes larger than the configured picture size
/// never reach libvpx and the requests they cause are rate limited, and a peer's PLI flood
/// makes at most one keyframe per interval.
@Suite struct ReceivePathLimitsTests {
    static let mediaSSRC: UInt32 = 0x1111, rtxSSRC: UInt32 = 0x2222

    static func receiver(maximumDecodedPixels: Int = RemoteInputLimits.maxDecodedPixels) -> RTPReceiver {
        let receiver = RTPReceiver(kind: .video, trackId: "remote-video")
        var recovery = RecoveryParameters()
        recovery.nack = true
        recovery.pli = true
        recovery.rtxPayloadType = 97
        receiver.configure(
            .init(
                payloadType: 96,
                codec: .vp8,
                codecName: "VP8",
                clockRate: 90_000,
                channels: 1,
                recovery: recovery,
                maximumDecodedPixels: maximumDecodedPixels
            ),
            remoteSSRC: mediaSSRC
        )
        return receiver
    }

    static func packet(
        _ sequence: UInt16,
        payloadType: UInt8 = 96,
        ssrc: UInt32 = mediaSSRC,
        timestamp: UInt32 = 3000,
        payload: [UInt8] = [0x10, 0x31, 0x01, 0x00, 0xAA]
    ) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 1500)
        let length = try out.withUnsafeMutableBytes { buffer in
            var writer = try RTPPacketWriter(
                into: buffer,
                header: RTPHeader(
                    marker: true,
                    payloadType: payloadType,
                    sequenceNumber: sequence,
                    timestamp: timestamp,
                    ssrc: ssrc
                )
            )
            try payload.withUnsafeBytes { try writer.appendPayload($0) }
            return try writer.finish()
        }
        return Array(out[..<length])
    }

    static func receive(_ receiver: RTPReceiver, _ bytes: [UInt8], at arrival: Double) throws {
        try bytes.withUnsafeBytes { receiver.receive(try RTPPacket(parsing: $0), arrival: arrival) }
    }

    /// An RTX packet resending `original` with `payload`.
    static func rtx(_ sequence: UInt16, original: UInt16) throws -> [UInt8] {
        try packet(
            sequence,
            payloadType: 97,
            ssrc: rtxSSRC,
            payload: [UInt8(original >> 8), UInt8(original & 0xFF), 0x10, 0x31, 0x01, 0x00, 0xAA]
        )
    }

    /// Media 100...111 without 105, and one RTX packet: far from the stream it is dropped and
    /// counted (the old receiver took 40000 for a jump and the stream's next packet as late);
    /// 105, or one just within the lead, repairs.
    static let rtxCases: [(UInt16, Bool)] = [
        (40_000, true), (200, true), (175, true), (64645, true), (105, false), (174, false),
    ]

    @Test(arguments: rtxCases)
    func anRTXFarFromTheStreamIsDroppedAndCounted(original: UInt16, dropped: Bool) throws {
        let receiver = Self.receiver()
        for sequence: UInt16 in 100...110 where sequence != 105 {
            try Self.receive(receiver, Self.packet(sequence), at: 0)
        }
        try Self.receive(receiver, Self.rtx(1, original: original), at: 0.05)
        try Self.receive(receiver, Self.packet(111), at: 0.06)
        let state = receiver.path.withLock { path in
            (
                late: path.assembler?.jitterBuffer.latePackets ?? -1,
                restarts: path.assembler?.jitterBuffer.jumpsRestarted ?? -1,
                repaired: path.recovery.retransmittedPackets, packets: path.packetsReceived
            )
        }
        #expect(receiver.limitCounts.rtxOutOfWindow == (dropped ? 1 : 0))
        #expect(state.late == 0 && state.restarts == 0, "the stream goes on where it was")
        #expect(state.repaired == (dropped ? 0 : 1) && state.packets == (dropped ? 11 : 12))
        receiver.stop()
    }

    @Test func anRTXBeforeAnyMediaIsDropped() throws {
        let receiver = Self.receiver()
        try Self.receive(receiver, Self.rtx(1, original: 100), at: 0)
        #expect(receiver.limitCounts.rtxOutOfWindow == 1)
        #expect(receiver.path.withLock { $0.packetsReceived } == 0)
        receiver.stop()
    }

    /// A 640×480 keyframe every 100 ms for 3 s to a receiver that takes 320×240 at most:
    /// each is dropped before libvpx and counted; the keyframe requests they cause go out
    /// at most once per interval (300 ms), the others are counted.
    @Test func keyframesOverThePictureLimitAreDroppedAndCounted() async throws {
        let receiver = Self.receiver(maximumDecodedPixels: 320 * 240)
        let encoder = try VP8Encoder(configuration: .init(width: 640, height: 480, targetBitrate: 500_000))
        let frame = try #require(try encoder.encode(VideoFrame(width: 640, height: 480)))
        #expect(frame.isKeyframe)
        var packetizer = VP8Packetizer(ssrc: Self.mediaSSRC, payloadType: 96, sequenceNumber: 1000)
        var buffer = [UInt8](repeating: 0, count: 1500)
        var requests = 0
        for tick in 0..<300 {
            let now = 1 + Double(tick) / 100
            if tick % 10 == 0 {
                var packets: [[UInt8]] = []
                _ = try frame.data.withUnsafeBytes { data in
                    try buffer.withUnsafeMutableBytes { out in
                        try packetizer.packetize(data, timestamp: UInt32(tick * 900), into: out) {
                            packets.append(Array($0))
                        }
                    }
                }
                for bytes in packets { try Self.receive(receiver, bytes, at: now) }
            }
            let feedback = receiver.feedback(now: now, roundTripTime: nil, compoundCNAME: nil)
            requests += feedback.filter { if case .pictureLossIndication = $0 { true } else { false } }.count
            try await Task.sleep(for: .milliseconds(2))
        }
        for _ in 0..<200 where receiver.limitCounts.framesTooLarge < 28 { try await Task.sleep(for: .milliseconds(10)) }
        let counts = receiver.limitCounts
        #expect(counts.framesTooLarge >= 28, "about 30 keyframes decoded (the last ones may wait in the jitter buffer)")
        #expect(receiver.decoding.withLock { $0.framesDecoded } == 0)
        #expect(requests >= 5 && requests <= 11, "\(requests) PLIs in 3 s")
        #expect(counts.keyframeRequestsRateLimited >= 5)
        #expect(counts.hits.contains { $0.limit == .frameSize && $0.count == counts.framesTooLarge })
        receiver.stop()
    }

    /// A PLI every 10 ms for a second: about one keyframe per 300 ms, the rest counted.
    @Test func aPLIFloodMakesAtMostOneKeyframePerInterval() {
        let sender = RTPSender(kind: .video, track: nil, ssrc: 1, rtxSsrc: nil)
        var keyframes = 0
        for i in 0..<100 {
            let now = 10 + Double(i) / 100
            sender.receivedKeyframeRequest(fir: nil, now: now)
            if sender.takeKeyframeRequest(now: now) { keyframes += 1 }
        }
        #expect((3...4).contains(keyframes))
        let counters = sender.counters.withLock { $0 }
        #expect(counters.pliReceived == 100 && counters.keyframeRequestsIgnored == Int64(100 - keyframes))
        #expect(sender.limitHits.first { $0.limit == .keyframeRequestRate }?.count == Int64(100 - keyframes))
        // After the interval the next request is served at once.
        sender.receivedKeyframeRequest(fir: nil, now: 12)
        #expect(sender.takeKeyframeRequest(now: 12))
    }

    /// A request within the interval is not lost: the keyframe comes when the interval ends
    /// (an SFU switching a subscriber's simulcast layer asks once, right after another
    /// subscriber's request, and waits for it).
    @Test func aRequestWithinTheIntervalIsServedWhenItEnds() {
        let sender = RTPSender(kind: .video, track: nil, ssrc: 1, rtxSsrc: nil)
        sender.receivedKeyframeRequest(fir: nil, now: 20)
        #expect(sender.takeKeyframeRequest(now: 20))
        sender.receivedKeyframeRequest(fir: nil, now: 20.05)
        #expect(!sender.takeKeyframeRequest(now: 20.05))
        #expect(!sender.takeKeyframeRequest(now: 20.2))
        #expect(sender.takeKeyframeRequest(now: 20.31))
        #expect(!sender.takeKeyframeRequest(now: 20.4), "one keyframe for the deferred request")
        #expect(!sender.takeKeyframeRequest(now: 21))
        #expect(sender.counters.withLock { $0.keyframeRequestsIgnored } == 1)
    }
}
