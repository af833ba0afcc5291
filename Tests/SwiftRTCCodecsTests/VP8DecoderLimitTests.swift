import SignalTestSupport
import SwiftRTCCore
import SwiftRTCRTP
import Testing

@testable import SwiftRTCCodecs

/// Issue 17: the picture size a peer states in a VP8 keyframe is checked before libvpx sees
/// the frame; a larger one is dropped and counted, and so are the delta frames after it.
@Suite struct VP8DecoderLimitTests {
    static func stream(width: Int, height: Int, frames: Int) throws -> [EncodedFrame] {
        let encoder = try VP8Encoder(configuration: .init(width: width, height: height, targetBitrate: 500_000))
        return try (0..<frames).map { i in
            try #require(try encoder.encode(TestSignals.pattern(width: width, height: height, index: i)))
        }
    }

    /// A keyframe header (frame tag, start code, 14-bit width and height) and some bytes.
    static func keyframe(width: Int, height: Int) -> EncodedFrame {
        let data: [UInt8] =
            [
                0x50, 0x01, 0x00, 0x9D, 0x01, 0x2A,
                UInt8(width & 0xFF), UInt8(width >> 8 & 0x3F), UInt8(height & 0xFF), UInt8(height >> 8 & 0x3F),
            ]
            + [UInt8](repeating: 0x5A, count: 200)
        return EncodedFrame(codec: .vp8, data: data, timestamp: 0, isKeyframe: true)
    }

    @Test func aLargerPictureThanTheLimitIsDroppedBeforeLibvpx() throws {
        let frames = try Self.stream(width: 640, height: 480, frames: 3)
        let small = try VP8Decoder(maximumPixels: 320 * 240)
        #expect(throws: VP8Error.frameTooLarge(width: 640, height: 480)) { try small.decode(frames[0]) }
        #expect(small.framesTooLarge == 1 && small.needsKeyframe)
        #expect(throws: VP8Error.needsKeyframe) { try small.decode(frames[1]) }
        #expect(small.framesDecoded == 0 && small.width == 0)
        // The same stream within the limit decodes.
        let decoder = try VP8Decoder(maximumPixels: 640 * 480)
        #expect(try decoder.decode(frames[0])?.width == 640)
        #expect(try decoder.decode(frames[1]) != nil && decoder.framesTooLarge == 0)
    }

    /// Headers a hostile peer may write: the largest VP8 can state, an empty one, one just
    /// over the default limit. None reaches libvpx; one just within it does (and fails there,
    /// its bytes being garbage).
    @Test(arguments: [
        (16383, 16383, true), (0, 480, true), (640, 0, true), (3841, 2160, true), (2160, 3840, false),
        (3840, 2160, false),
    ])
    func statedSizesAreChecked(width: Int, height: Int, refused: Bool) throws {
        let decoder = try VP8Decoder()
        #expect(decoder.maximumPixels == RemoteInputLimits.maxDecodedPixels)
        do {
            _ = try decoder.decode(Self.keyframe(width: width, height: height))
            Issue.record("garbage decoded")
        } catch {
            #expect((error == .frameTooLarge(width: width, height: height)) == refused, "\(error)")
        }
        #expect(decoder.framesTooLarge == (refused ? 1 : 0))
    }
}
