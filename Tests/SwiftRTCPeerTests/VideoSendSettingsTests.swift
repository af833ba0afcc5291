import Foundation
import SwiftRTCCodecs
import SwiftRTCMedia
import Testing

@testable import SwiftRTCPeer

/// The sending resolution and frame rate are settings, and a source of another size is sent
/// at its size: what the peer decodes over a real call.
@Suite(.serialized, .realTime) struct VideoSendSettingsTests {
    static func remoteVideo(_ call: LoopbackCall) async throws -> MediaStreamTrack {
        try #require(await call.answerer.transceivers.first { $0.kind == .video }?.receiver.track)
    }

    /// Waits for a remote picture of `size` (the encoder starts over at the new size).
    static func waitForPicture(
        _ track: MediaStreamTrack,
        _ size: VideoSize,
        timeout: Duration = .seconds(5)
    ) async -> VideoFrame? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let picture = await track.snapshot(), picture.width == size.width, picture.height == size.height {
                return picture
            }
        }
        return nil
    }

    @Test func aSourceOfAnotherSizeIsSentAtItsSize() async throws {
        let call = try await LoopbackCall.start(width: 320, height: 240, framesPerSecond: 15)
        defer { Task { await call.close() } }
        try #require(call.connectedAfter != nil)
        let remote = try await Self.remoteVideo(call)
        #expect(await Self.waitForPicture(remote, VideoSize(width: 320, height: 240)) != nil)
        // The screen share after the camera: 640x360, sent as 640x360, not scaled to 320x240.
        call.tracks[1].play(TestPatternSource(width: 640, height: 360, framesPerSecond: 15))
        let shared = await Self.waitForPicture(remote, VideoSize(width: 640, height: 360))
        #expect(
            shared.map { TestPatternSource.readFrameCounter(from: $0) != nil } == true,
            "the new source decoded at its own size"
        )
    }

    /// Settings out of range are held to what the encoder takes.
    @Test func sendSettingsAreClamped() {
        var configuration = PeerConnection.Configuration()
        configuration.videoSendSize = VideoSize(width: 0, height: 100_000)
        configuration.maxVideoFrameRate = 1_000
        #expect(
            configuration.videoSendSize == VideoSize(width: 16, height: 4096) && configuration.maxVideoFrameRate == 60
        )
    }

    @Test func sendSizeAndFrameRateAreSettings() async throws {
        var offerer = LoopbackCall.configuration
        offerer.videoSendSize = VideoSize(width: 160, height: 90)
        offerer.maxVideoFrameRate = 10
        let call = try await LoopbackCall.start(
            width: 320,
            height: 240,
            framesPerSecond: 30,
            configurations: (offerer, LoopbackCall.configuration)
        )
        defer { Task { await call.close() } }
        try #require(call.connectedAfter != nil)
        let remote = try await Self.remoteVideo(call)
        #expect(
            await Self.waitForPicture(remote, VideoSize(width: 160, height: 90)) != nil,
            "320x240 frames sent at 160x90"
        )
        let before = await Self.framesDecoded(call.answerer)
        try await Task.sleep(for: .seconds(2))
        let rate = Double(await Self.framesDecoded(call.answerer) - before) / 2
        print("send settings: \(rate) frames/s decoded from a 30 fps source capped at 10")
        #expect(rate > 5 && rate <= 11)
    }

    static func framesDecoded(_ pc: PeerConnection) async -> Int {
        Int(await pc.stats().first(.inboundRTP, kind: "video")?.number("framesDecoded") ?? 0)
    }
}
