import RTPFixtureSupport
import SwiftRTCCore
import Testing

@testable import SwiftRTCRTP
@testable import SwiftRTCReceive

/// Issue 17: a peer's VP8 frames cannot grow a receiver's frame buffer beyond the named
/// limit, and keyframe requests held back by their rate limit are counted.
@Suite struct FrameLimitsTests {
    /// A keyframe of `packets` packets of 1200 payload bytes through a frame assembler: the
    /// frame is dropped (and counted) once it passes the limit; the next frame is whole.
    @Test(arguments: [(1000, false), (1800, true)])
    func aFrameBeyondTheLimitIsDroppedAndCounted(packets: Int, dropped: Bool) throws {
        let assembler = FrameAssembler(codec: .vp8, capacity: 64, maximumWait: 0.1)
        let keyframeStart: [UInt8] = [0x10, 0x50, 0x01, 0x00, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0, 0x01]
        var frames = 0
        for i in 0...packets {
            let last = i == packets - 1 || i == packets
            let descriptor: [UInt8] = i == 0 || i == packets ? keyframeStart : [0x00]
            let payload = descriptor + [UInt8](repeating: 0xAB, count: 1200 - descriptor.count)
            let bytes = try writeRTP(
                RTPHeader(
                    marker: last,
                    payloadType: 96,
                    sequenceNumber: UInt16(i),
                    timestamp: i == packets ? 6000 : 3000,
                    ssrc: 1
                )
            ) { w in
                try payload.withUnsafeBytes { try w.appendPayload($0) }
            }
            bytes.withUnsafeBytes { _ = assembler.insert($0, arrival: 0) }
            while let frame = assembler.nextFrame(now: 1) {
                frames += 1
                #expect(frame.data.count <= RemoteInputLimits.maxEncodedVideoFrameBytes)
            }
        }
        #expect(frames == (dropped ? 1 : 2))
        #expect(assembler.oversizedFrames == (dropped ? 1 : 0))
        #expect(assembler.droppedFrames == (dropped ? 1 : 0))
    }

    /// A need for a keyframe every 10 ms (every feedback tick) for 3 s: a request every
    /// 300 ms, and each interval's held-back needs counted once.
    @Test func heldBackRequestsAreCountedOncePerInterval() {
        var requester = KeyframeRequester(senderSSRC: 1, pli: true, fir: false)
        var sent = 0
        for tick in 0..<300 where requester.request(mediaSSRC: 2, now: Double(tick) / 100, roundTripTime: nil) != nil {
            sent += 1
        }
        #expect((9...10).contains(sent))
        #expect(requester.rateLimited == sent)
    }
}
