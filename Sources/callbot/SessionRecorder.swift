import Foundation
import SwiftRTC

/// Records what a `whip-server` session receives into a WebM file (`--record`), frame by frame
/// as it arrives, without re-encoding (the receivers' Opus and VP8 ``EncodedFrame``s).
///
/// The WebM header needs the picture size, so with video the file is created at the first VP8
/// keyframe; audio that arrives before it is held (at most ``maximumHeldFrames``) and written then.
final class SessionRecorder: Sendable {
    static let maximumHeldFrames = 500

    private let feeders: [Task<Void, Never>]
    private let writer: Task<String?, Never>

    /// Starts recording the received kinds of `transceivers` to `path`.
    init(path: String, transceivers: [RTPTransceiver]) {
        let receiving = transceivers.filter { $0.currentDirection?.receives ?? $0.direction.receives }
        let hasAudio = receiving.contains { $0.kind == .audio }
        let hasVideo = receiving.contains { $0.kind == .video }
        let (frames, continuation) = AsyncStream.makeStream(of: EncodedFrame.self, bufferingPolicy: .bufferingNewest(256))
        var feeders: [Task<Void, Never>] = []
        for transceiver in receiving {
            let encoded = transceiver.receiver.encodedFrames()
            feeders.append(Task {
                for await frame in encoded { continuation.yield(frame) }
            })
        }
        self.feeders = feeders
        writer = Task {
            var recorder: WebMRecorder?
            var held: [EncodedFrame] = []
            var written = 0
            do {
                for await frame in frames {
                    if recorder == nil {
                        if hasVideo {
                            guard frame.codec == .vp8, frame.isKeyframe, let size = Self.pictureSize(of: frame) else {
                                if frame.codec == .opus, held.count < Self.maximumHeldFrames { held.append(frame) }
                                continue
                            }
                            recorder = try WebMRecorder(path: path, audio: hasAudio ? OpusHead(channels: 2) : nil,
                                                        video: .init(width: size.width, height: size.height))
                        } else {
                            recorder = try WebMRecorder(path: path, audio: OpusHead(channels: 2), video: nil)
                        }
                        for early in held { try recorder?.write(early) }
                        written += held.count
                        held = []
                    }
                    try recorder?.write(frame)
                    written += 1
                }
                try recorder?.close()
                guard recorder != nil else {
                    return hasVideo || hasAudio ? "recording \(path): no \(hasVideo ? "video keyframe" : "audio") was received" : "recording \(path): nothing is received"
                }
                log("recorded \(written) frames to \(path)")
                return nil
            } catch {
                try? recorder?.close()
                return "recording \(path): \(error)"
            }
        }
        finishStream = { continuation.finish() }
    }

    private let finishStream: @Sendable () -> Void

    /// Stops recording, closes the file; returns what went wrong, if anything.
    func finish() async -> String? {
        for feeder in feeders { feeder.cancel() }
        finishStream()
        return await writer.value
    }

    /// The size in a VP8 keyframe's header (RFC 6386 §9.1): start code 9d 01 2a after the
    /// 3-byte frame tag, then 14-bit width and height, little-endian.
    static func pictureSize(of frame: EncodedFrame) -> (width: Int, height: Int)? {
        if let width = frame.width, let height = frame.height, width > 0, height > 0 { return (width, height) }
        let d = frame.data
        guard d.count >= 10, d[3] == 0x9D, d[4] == 0x01, d[5] == 0x2A else { return nil }
        let width = Int(d[6]) | Int(d[7] & 0x3F) << 8
        let height = Int(d[8]) | Int(d[9] & 0x3F) << 8
        return width > 0 && height > 0 ? (width, height) : nil
    }
}
