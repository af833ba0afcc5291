import Foundation
import SwiftRTC

/// Records what a `whip-server` session receives into a WebM file (`--record`), frame by frame
/// as it arrives, without re-encoding (the receivers' Opus and VP8 ``EncodedFrame``s).
///
/// The WebM header needs the picture size, so with video the file is created at the first VP8
/// keyframe; audio that arrives before it is held (at most ``maximumHeldFrames``) and written then.
/// The file is `<base>.webm` in the folder, or `<base>-2.webm`... when that exists: a recording
/// never replaces a file (``RecordingFolder/createFile(base:extension:)``).
/// With `trimming`, leading and trailing silence is left out: each Opus frame is decoded once
/// more here so that the recorder's voice activity detector can hear it.
final class SessionRecorder: Sendable {
    static let maximumHeldFrames = 500

    private let feeders: [Task<Void, Never>]
    private let writer: Task<String?, Never>

    /// Starts recording the received kinds of `transceivers` to a new file `<base>...webm` in `folder`.
    init(folder: RecordingFolder, base: String, transceivers: [RTPTransceiver], trimming: SilenceTrimming? = nil) {
        // Only negotiated transceivers (with a mid) receive: a track added for a kind the offer
        // did not carry makes a transceiver that never gets media.
        let receiving = transceivers.filter { $0.mid != nil && ($0.currentDirection?.receives ?? $0.direction.receives) }
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
            // Until the file is created: where it will be (the first free name of these).
            var path = folder.url.appendingPathComponent(base + "[-N].webm").path
            var recorder: WebMRecorder?
            var held: [EncodedFrame] = []
            var written = 0
            do {
                let speech = try trimming.map { _ in try OpusDecoder(channels: 2) }
                func write(_ frame: EncodedFrame) throws {
                    let pcm = frame.codec == .opus ? try? speech?.decode(frame) : nil
                    try recorder?.write(frame, pcm: pcm)
                }
                for await frame in frames {
                    if recorder == nil {
                        if hasVideo {
                            guard frame.codec == .vp8, frame.isKeyframe, let size = Self.pictureSize(of: frame) else {
                                if frame.codec == .opus, held.count < Self.maximumHeldFrames { held.append(frame) }
                                continue
                            }
                            path = try folder.createFile(base: base, extension: "webm").path
                            recorder = try WebMRecorder(path: path, audio: hasAudio ? OpusHead(channels: 2) : nil,
                                                        video: .init(width: size.width, height: size.height), trimming: trimming)
                        } else {
                            path = try folder.createFile(base: base, extension: "webm").path
                            recorder = try WebMRecorder(path: path, audio: OpusHead(channels: 2), video: nil, trimming: trimming)
                        }
                        for early in held { try write(early) }
                        written += held.count
                        held = []
                    }
                    try write(frame)
                    written += 1
                }
                try recorder?.close()
                guard recorder != nil else {
                    let missing = hasVideo || hasAudio ? "no \(hasVideo ? "video keyframe" : "audio") was received" : "nothing is received"
                    return "recording \(path): \(missing), no file written"
                }
                log("recorded \(written) frames to \(path)")
                return nil
            } catch let error as RecordingFileError {
                return error.description
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

    /// The picture size of a VP8 keyframe: from the depacketizer, or read from its header.
    static func pictureSize(of frame: EncodedFrame) -> (width: Int, height: Int)? {
        if let width = frame.width, let height = frame.height, width > 0, height > 0 { return (width, height) }
        let header = frame.data.withUnsafeBytes { try? VP8FrameHeader(parsing: $0) }
        guard let width = header?.width, let height = header?.height, width > 0, height > 0 else { return nil }
        return (width, height)
    }
}
