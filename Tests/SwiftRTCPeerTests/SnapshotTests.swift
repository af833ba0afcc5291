import Foundation
import SwiftRTCCodecs
import Testing

@testable import SwiftRTCMedia
@testable import SwiftRTCPeer

/// A snapshot of a remote video track over a real call: a decoded 320x240 picture of the
/// peer's test pattern (its frame counter readable), saved as a PNG that ffmpeg decodes back
/// to exactly the RGB of the picture.
@Suite(.serialized, .realTime) struct SnapshotTests {
    @Test func aRemoteTracksSnapshotAsAPNG() async throws {
        let call = try await LoopbackCall.start(width: 320, height: 240, framesPerSecond: 15)
        defer { Task { await call.close() } }
        try #require(call.connectedAfter != nil)
        try #require(await call.waitForMedia())
        let remote = try #require(await call.answerer.transceivers.first { $0.kind == .video }?.receiver.track)
        let picture = try #require(await remote.snapshot())
        #expect(picture.width == 320 && picture.height == 240)
        #expect(TestPatternSource.readFrameCounter(from: picture) != nil, "a decoded frame of the peer's test pattern")
        #expect(await MediaStreamTrack(kind: .audio).snapshot() == nil)

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("snapshot-\(getpid()).png").path
        try picture.writePNG(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let raw = path + ".rgb"
        let ffmpeg = try await MediaRecorderTests.run(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-y", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", raw]
        )
        defer { try? FileManager.default.removeItem(atPath: raw) }
        #expect(ffmpeg.status == 0)
        let decoded = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let size: Int = 320 * 240 * 3
        try #require(decoded.count == size)
        var expected: [UInt8] = []
        for row in 0..<240 {
            for column in 0..<320 {
                let (r, g, b) = VideoFrame.rgb(
                    y: picture.y[row * picture.yStride + column],
                    u: picture.u[(row / 2) * picture.uvStride + column / 2],
                    v: picture.v[(row / 2) * picture.uvStride + column / 2]
                )
                expected += [r, g, b]
            }
        }
        #expect(decoded == expected, "the PNG holds the picture, losslessly")
    }
}
