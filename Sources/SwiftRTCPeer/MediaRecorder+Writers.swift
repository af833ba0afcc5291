import Foundation
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCRTP
import SwiftRTCSDP
import Synchronization

// The writers: a recording's frames into its Ogg or WebM file, audio encoded to Opus on the way.
extension MediaRecorder {
    /// Writes the Opus of `frames` (encoded as it came, raw audio encoded) to an Ogg file,
    /// the first of `parts`, once the first arrives (and on in the next part at each
    /// rollover); what was missing when nothing did.
    package static func writeOgg(
        _ frames: AsyncStream<MediaFrame>,
        to parts: RecordingParts,
        trimming: SilenceTrimming?
    ) async throws(MediaFileError) -> Nothing? {
        var writer: OggOpusWriter?
        var codec = AudioCodec(trimming: trimming)
        var url = parts.files[0]
        var progress = RecordingParts.Progress()
        frames: for await frame in frames {
            for (opus, pcm) in codec.opus(frame) {
                if writer != nil, parts.isDue(progress) {
                    try writer?.close()
                    writer = nil
                    url = try parts.next()
                    progress = RecordingParts.Progress()
                }
                if writer == nil {
                    writer = try OggOpusWriter(
                        path: url.path,
                        head: OpusHead(channels: codec.channels),
                        trimming: trimming
                    )
                }
                try writer?.write(opus, pcm: pcm)
                progress.bytes += opus.data.count
                guard parts.wrote(opus.data.count) else { break frames }
            }
        }
        guard let writer else { return .audio }
        try writer.close()
        return nil
    }

    /// Writes `frames` to a WebM file, the first of `parts`, beginning at the first VP8
    /// keyframe when `hasVideo` (audio before it held), and on in the next part at each
    /// rollover (at a keyframe, asked for with `requestKeyframe`); what was missing when
    /// nothing could be written.
    package static func writeWebM(
        _ frames: AsyncStream<MediaFrame>,
        to parts: RecordingParts,
        hasVideo: Bool,
        hasAudio: Bool,
        trimming: SilenceTrimming?,
        requestKeyframe: @Sendable () -> Void
    ) async throws(MediaFileError) -> Nothing? {
        var recorder: WebMRecorder?
        var url = parts.files[0]
        // The first keyframe was asked for as recording began.
        var progress = RecordingParts.Progress(keyframeAsked: .now)
        // Audio before the first keyframe, with when it came: it keeps its place on the
        // timeline (placed at the keyframe, it put the audio behind the video by the wait).
        var held: [(frame: EncodedFrame, pcm: AudioFrame?, arrival: ContinuousClock.Instant)] = []
        var audioCodec = AudioCodec(trimming: trimming)
        var vp8: VP8Encoder?
        frames: for await frame in frames {
            let items = webMItems(
                frame,
                vp8: &vp8,
                audioCodec: &audioCodec,
                keyframeDue: recorder != nil && parts.isDue(progress)
            )
            for item in items {
                if recorder != nil, parts.isDue(progress) {
                    // A file with video ends before a keyframe, so that the next one starts with it.
                    if !hasVideo || (item.0.codec == .vp8 && item.0.isKeyframe) {
                        try recorder?.close()
                        recorder = nil
                        url = try parts.next()
                        progress = RecordingParts.Progress()
                    } else if progress.shouldAskForKeyframe() {
                        requestKeyframe()
                    }
                }
                if recorder == nil {
                    recorder = try openWebM(
                        at: url,
                        for: item,
                        hasVideo: hasVideo,
                        hasAudio: hasAudio,
                        held: &held,
                        trimming: trimming
                    )
                    guard recorder != nil else {
                        // The first request (as recording began) may have been lost or
                        // refused as too soon, and a sender's next keyframe of its own may
                        // be minutes away: asked again until one comes.
                        if progress.shouldAskForKeyframe() { requestKeyframe() }
                        continue
                    }
                    for early in held { try recorder?.write(early.frame, arrival: early.arrival, pcm: early.pcm) }
                    held = []
                }
                try recorder?.write(item.0, pcm: item.1)
                progress.bytes += item.0.data.count
                guard parts.wrote(item.0.data.count) else { break frames }
            }
        }
        guard let recorder else { return hasVideo ? .videoKeyframe : .audio }
        try recorder.close()
        return nil
    }

    /// The WebM file a recording's next part begins with `item` at `url`: at once for audio
    /// alone; with video, at the first VP8 keyframe (its size the file's) and nil before it,
    /// the audio before it held (up to ``maximumHeldFrames``) to keep its place.
    static func openWebM(
        at url: URL,
        for item: (EncodedFrame, AudioFrame?),
        hasVideo: Bool,
        hasAudio: Bool,
        held: inout [(frame: EncodedFrame, pcm: AudioFrame?, arrival: ContinuousClock.Instant)],
        trimming: SilenceTrimming?
    ) throws(MediaFileError) -> WebMRecorder? {
        guard hasVideo else {
            return try WebMRecorder(path: url.path, audio: OpusHead(channels: 2), video: nil, trimming: trimming)
        }
        guard item.0.codec == .vp8, item.0.isKeyframe, let size = pictureSize(of: item.0) else {
            if item.0.codec == .opus, held.count < maximumHeldFrames { held.append((item.0, item.1, .now)) }
            return nil
        }
        return try WebMRecorder(
            path: url.path,
            audio: hasAudio ? OpusHead(channels: 2) : nil,
            video: size,
            startedAt: held.first?.arrival ?? .now,
            trimming: trimming
        )
    }

    /// What one frame of a WebM recording's stream writes: a local track's raw video encoded
    /// with `vp8` (made at the first frame's size, the file's; a keyframe asked of it when
    /// `keyframeDue`), VP8 as it came, audio as Opus.
    static func webMItems(
        _ frame: MediaFrame,
        vp8: inout VP8Encoder?,
        audioCodec: inout AudioCodec,
        keyframeDue: Bool
    ) -> [(EncodedFrame, AudioFrame?)] {
        switch frame {
        case .video(let picture):
            if vp8 == nil {
                vp8 = try? VP8Encoder(
                    configuration: .init(width: picture.width, height: picture.height, targetBitrate: 1_500_000)
                )
            }
            // A part that is full ends before a keyframe: this encoder makes the next one.
            if keyframeDue { vp8?.requestKeyframe() }
            guard vp8?.configuration.width == picture.width, vp8?.configuration.height == picture.height,
                let encoded = try? vp8?.encode(picture)
            else { return [] }
            return [(encoded, nil)]
        case .encoded(let encoded) where encoded.codec == .vp8:
            return [(encoded, nil)]
        default:
            return audioCodec.opus(frame)
        }
    }

    /// Audio into Opus for Ogg and WebM: encoded frames as they are, raw ones cut into 20 ms
    /// frames and encoded; with trimming, the PCM the recorder's voice activity detector
    /// hears (decoded again).
    struct AudioCodec {
        let trimming: SilenceTrimming?
        var encoder: OpusEncoder?
        var decoder: OpusDecoder?
        var chunker = AudioChunker()
        var channels = 2

        init(trimming: SilenceTrimming?) { self.trimming = trimming }

        mutating func opus(_ frame: MediaFrame) -> [(EncodedFrame, AudioFrame?)] {
            switch frame {
            case .encoded(let encoded) where encoded.codec == .opus:
                guard trimming != nil else { return [(encoded, nil)] }
                if decoder == nil { decoder = try? OpusDecoder(channels: 2) }
                return [(encoded, try? decoder?.decode(encoded))]
            case .audio(let audio):
                guard (1...2).contains(audio.channels) else { return [] }
                if encoder == nil || encoder?.configuration.channels != audio.channels {
                    encoder = try? OpusEncoder(configuration: OpusEncoderConfiguration(channels: audio.channels))
                    channels = audio.channels
                }
                var out: [(EncodedFrame, AudioFrame?)] = []
                audio.samples.withUnsafeBufferPointer { samples in
                    chunker.append(samples, channels: audio.channels) { chunk in
                        guard var encoded = try? encoder?.encode(chunk) else { return }
                        encoded.timestamp = UInt32(truncatingIfNeeded: chunk.timestamp)
                        out.append((encoded, trimming == nil ? nil : chunk))
                    }
                }
                return out
            default:
                return []
            }
        }
    }

    /// The picture size of a VP8 keyframe: from the depacketizer, or read from its header.
    static func pictureSize(of frame: EncodedFrame) -> VideoSize? {
        if let width = frame.width, let height = frame.height, width > 0, height > 0 {
            return VideoSize(width: width, height: height)
        }
        let header = frame.data.withUnsafeBytes { VP8FrameHeader(parsing: $0) }
        guard let width = header?.width, let height = header?.height, width > 0, height > 0 else { return nil }
        return VideoSize(width: Int(width), height: Int(height))
    }
}
