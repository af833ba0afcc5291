import SignalTestSupport
import SwiftRTCCore
import SwiftRTCRTP
import TestScheduling
import Testing

@testable import SwiftRTCCodecs

@Suite struct VP8DecoderTests {
    static func stream(frames: Int, keyframeAt: Set<Int> = []) throws -> [EncodedFrame] {
        let encoder = try VP8Encoder(configuration: .init(width: 320, height: 240, targetBitrate: 500_000))
        return try (0..<frames).map { i in
            if keyframeAt.contains(i) { encoder.requestKeyframe() }
            return try #require(try encoder.encode(TestSignals.pattern(width: 320, height: 240, index: i)))
        }
    }

    @Test func deltaFramesBeforeTheFirstKeyframeAreDropped() throws {
        let frames = try Self.stream(frames: 3)
        let decoder = try VP8Decoder()
        #expect(decoder.needsKeyframe)
        #expect(throws: VP8Error.needsKeyframe) { try decoder.decode(frames[1]) }
        #expect(decoder.framesDroppedWaitingForKeyframe == 1)
        #expect(try decoder.decode(frames[0]) != nil)
        #expect(!decoder.needsKeyframe)
        #expect(try decoder.decode(frames[2]) != nil)
    }

    @Test func corruptFrameNeedsAKeyframeToRecover() throws {
        let frames = try Self.stream(frames: 8, keyframeAt: [6])
        let decoder = try VP8Decoder()
        var picture = VideoFrame(width: 2, height: 2)
        #expect(try decoder.decode(frames[0], into: &picture))
        #expect(try decoder.decode(frames[1], into: &picture))
        // Frame 2 cut short: its partition sizes point past the end.
        var truncated = frames[2]
        truncated.data = Array(truncated.data.prefix(truncated.data.count / 3))
        #expect(throws: VP8Error.self) { try decoder.decode(truncated, into: &picture) }
        #expect(decoder.corruptFrames == 1 && decoder.needsKeyframe)
        for frame in frames[3...5] {
            #expect(throws: VP8Error.needsKeyframe) { try decoder.decode(frame, into: &picture) }
        }
        #expect(frames[6].isKeyframe)
        #expect(try decoder.decode(frames[6], into: &picture))
        #expect(!decoder.needsKeyframe && picture.width == 320 && picture.timestamp == 6 * 3000)
        #expect(try decoder.decode(frames[7], into: &picture))
        #expect(decoder.framesDecoded == 4)
    }

    @Test func aReportedLossWaitsForAKeyframe() throws {
        let frames = try Self.stream(frames: 5, keyframeAt: [4])
        let decoder = try VP8Decoder()
        #expect(try decoder.decode(frames[0]) != nil)
        decoder.frameLost()  // frame 1 never arrived
        #expect(decoder.needsKeyframe)
        #expect(throws: VP8Error.needsKeyframe) { try decoder.decode(frames[2]) }
        #expect(throws: VP8Error.needsKeyframe) { try decoder.decode(frames[3]) }
        let picture = try #require(try decoder.decode(frames[4]))
        #expect(picture.width == 320 && !decoder.needsKeyframe && decoder.framesDroppedWaitingForKeyframe == 2)
    }

    @Test func garbageNeverCrashes() async throws {
        let decoder = try VP8Decoder()
        // Random keyframe headers make libvpx allocate and scan frames of random sizes:
        // seconds of CPU, kept off the cooperative pool.
        let rejected = try await offThePool {
            let decoder = try VP8Decoder()
            var generator = SystemRandomNumberGenerator()
            var rejected = 0
            for length in [0, 1, 3, 9, 10, 11, 50, 400] {
                for _ in 0..<20 {
                    var data = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                    if length >= 10 {  // a keyframe header with random size and contents
                        data[0] &= 0xFE
                        data[3] = 0x9D
                        data[4] = 0x01
                        data[5] = 0x2A
                    }
                    do {
                        _ = try decoder.decode(EncodedFrame(codec: .vp8, data: data, timestamp: 0, isKeyframe: true))
                    } catch { rejected += 1 }
                }
            }
            return rejected
        }
        #expect(rejected > 100)
        #expect(throws: VP8Error.wrongCodec(.opus)) {
            try decoder.decode(EncodedFrame(codec: .opus, data: [0], timestamp: 0, isKeyframe: true))
        }
        #expect(throws: VP8Error.invalidThreads(0)) { try VP8Decoder(threads: 0) }
    }

    /// RFC 6386 §9.1: frame type bit 0 and the start code 9d 01 2a make a keyframe; anything
    /// shorter than the 10-byte keyframe header is not one.
    @Test(
        arguments: [
            ([0x50, 0x42, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xF0, 0x00], true),
            ([0x51, 0x42, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xF0, 0x00], false),
            ([0x50, 0x42, 0x00, 0x9D, 0x01, 0x2B, 0x40, 0x01, 0xF0, 0x00], false),
            ([0x50, 0x42, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xF0], false),
            ([0x50], false),
            ([], false),
        ] as [([UInt8], Bool)]
    )
    func keyframeByItsHeader(data: [UInt8], keyframe: Bool) {
        #expect(VP8Decoder.isKeyframe(data) == keyframe)
    }
}
