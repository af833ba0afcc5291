import Foundation
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCRTP
import SwiftRTCSDP
import Synchronization

/// Records tracks into files in one line, as aiortc's `MediaRecorder` does:
///
/// ```swift
/// let recorder = try MediaRecorder(tracks: [remoteAudio, remoteVideo], path: "call.webm")
/// ...
/// let files = try await recorder.stop()
/// ```
///
/// The extension picks the format. **WebM** (`.webm`) takes an audio and a video track (or
/// either): Opus and VP8 as received, no re-encoding; a local track's raw frames are encoded
/// (Opus, VP8). With video, the file is made at the first keyframe, where its video begins;
/// audio that came before it is held until then (at most ``maximumHeldFrames``) and keeps
/// its place, from when it came. **Ogg Opus** (`.ogg`, `.opus`) takes an audio track
/// (Opus as received, or encoded). **WAV** (`.wav`) takes an audio track's decoded 48 kHz
/// PCM. More tracks than one file takes go to more files, named `<name>-2.<ext>`, ...
/// (pairing the n-th audio with the n-th video track for WebM).
///
/// Works for any track: a `PeerConnection`'s remote tracks, a call session's, a local track
/// being sent. Every file is created when recording starts and never replaces one that
/// exists. Files are written as frames arrive and stay playable if the process dies. With a
/// ``Rollover``, a long recording goes on in a new file at the size or after the time chosen
/// (`<name>-part2.<ext>`...), so that a crash can damage only the file being written.
/// ``stop()`` returns the files written, and throws what went wrong (a write that failed, a
/// file that got nothing: it is removed), so a failed recording reaches the caller.
public final class MediaRecorder: Sendable {
    /// Audio frames held before the first video keyframe of a WebM.
    public static let maximumHeldFrames = 500

    enum Format: Sendable {
        case webm, oggOpus, wav
    }

    /// The files written so far: the first of each recording, and the parts after rollovers.
    public var files: [URL] { recordings.flatMap(\.parts.files) }
    /// The recordings (files with their parts) that reached ``maximumParts`` and go on in
    /// their last part.
    public var partLimitsReached: Int { recordings.count { $0.parts.isAtLimit } }
    /// The recordings that stopped because they held the `maxBytes` they were given (their
    /// files closed, playable to where they stopped).
    public var sizeLimitsReached: Int { recordings.count { $0.parts.isAtSizeLimit } }
    let recordings: [Recording]

    struct Recording: Sendable {
        let parts: RecordingParts
        /// Each track's frames into the writer, and what ends the track's stream (the feeder
        /// then hands over what the stream still holds and returns).
        let feeders: [(task: Task<Void, Never>, end: @Sendable () -> Void)]
        let finish: @Sendable () -> Void
        let writer: Task<Void, any Error>
    }

    /// Starts recording `tracks` into `path` (more files beside it if they do not fit one).
    /// With `trimming`, leading and trailing silence is left out (audio; WebM and Ogg decode
    /// the Opus once more to hear it); with `rollover`, the recording goes on in a new file
    /// at the size or after the time chosen; with `maxBytes`, each recording (a file and its
    /// parts) stops once it holds that much media (``sizeLimitsReached``).
    public convenience init(
        tracks: [MediaStreamTrack],
        path: String,
        trimming: SilenceTrimming? = nil,
        rollover: Rollover? = nil,
        maxBytes: Int? = nil
    ) throws(MediaRecorderError) {
        try self.init(
            tracks: tracks,
            url: URL(fileURLWithPath: path),
            reserved: false,
            trimming: trimming,
            rollover: rollover,
            maxBytes: maxBytes
        )
    }

    /// Records into `file`, which the caller created empty for it (a ``RecordingFolder``'s
    /// unique name, made with `O_EXCL`); more files beside it are created here.
    package convenience init(
        tracks: [MediaStreamTrack],
        reservedFile file: URL,
        trimming: SilenceTrimming? = nil,
        rollover: Rollover? = nil,
        maxBytes: Int? = nil
    ) throws(MediaRecorderError) {
        try self.init(
            tracks: tracks,
            url: file,
            reserved: true,
            trimming: trimming,
            rollover: rollover,
            maxBytes: maxBytes
        )
    }

    init(
        tracks: [MediaStreamTrack],
        url: URL,
        reserved: Bool,
        trimming: SilenceTrimming?,
        rollover: Rollover?,
        maxBytes: Int?
    ) throws(MediaRecorderError) {
        let path = url.path
        let format: Format
        switch url.pathExtension.lowercased() {
        case "webm": format = .webm
        case "ogg", "opus": format = .oggOpus
        case "wav": format = .wav
        default: throw .unknownFormat(path: path)
        }
        let audio = tracks.filter { $0.kind == .audio }, video = tracks.filter { $0.kind == .video }
        guard !tracks.isEmpty else { throw .tracksDoNotFit(path: path, reason: "no track to record") }
        guard format == .webm || video.isEmpty else {
            throw .tracksDoNotFit(path: path, reason: "\(url.pathExtension) holds no video")
        }
        let groups: [[MediaStreamTrack]] =
            format == .webm
            ? (0..<max(audio.count, video.count)).map { index in
                [audio, video].compactMap { index < $0.count ? $0[index] : nil }
            }
            : audio.map { [$0] }
        var recordings: [Recording] = []
        do throws(MediaRecorderError) {
            for (index, group) in groups.enumerated() {
                let name = "\(url.deletingPathExtension().lastPathComponent)-\(index + 1).\(url.pathExtension)"
                let file = index == 0 ? url : url.deletingLastPathComponent().appendingPathComponent(name)
                if index > 0 || !reserved { try Self.create(file) }
                recordings.append(
                    Self.record(
                        group,
                        to: file,
                        format: format,
                        trimming: trimming,
                        rollover: rollover,
                        maxBytes: maxBytes
                    )
                )
            }
        } catch {
            for recording in recordings {
                recording.finish()
                recording.writer.cancel()
            }
            throw error
        }
        self.recordings = recordings
    }

    /// Stops recording, closes the files, and returns those written (in order). Throws the
    /// first failure after closing every file: a file that got nothing is removed.
    @discardableResult
    public func stop() async throws(MediaRecorderError) -> [URL] {
        var written: [URL] = []
        var failure: MediaRecorderError?
        for recording in recordings {
            // Each track's stream ends, and its feeder hands the writer the frames that stream
            // still holds: under load a feeder runs behind, and cancelling it lost them (the
            // last quarter to half second of a recording's video).
            for feeder in recording.feeders { feeder.end() }
            for feeder in recording.feeders { await feeder.task.value }
            recording.finish()
            do {
                try await recording.writer.value
                written += recording.parts.files
            } catch let error as MediaRecorderError {
                failure = failure ?? error
                if case .nothingRecorded = error {
                    try? FileManager.default.removeItem(at: recording.parts.first)
                } else {
                    written += recording.parts.files
                }
            } catch {
                failure = failure ?? .file(.unusable(format: recording.parts.first.pathExtension, reason: "\(error)"))
            }
        }
        if let failure { throw failure }
        return written
    }

    /// Creates `url` empty, failing if it exists (`O_EXCL`): a recording never replaces a file.
    static func create(_ url: URL) throws(MediaRecorderError) {
        if let code = createExclusively(url) { throw .cannotCreate(path: url.path, errno: code) }
    }

    /// Creates `url` empty unless it exists; the `errno` when it could not.
    static func createExclusively(_ url: URL) -> Int32? {
        let descriptor = open(url.path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return errno }
        close(descriptor)
        return nil
    }

    static func record(
        _ tracks: [MediaStreamTrack],
        to url: URL,
        format: Format,
        trimming: SilenceTrimming?,
        rollover: Rollover?,
        maxBytes: Int?
    ) -> Recording {
        let parts = RecordingParts(first: url, rollover: rollover, maxBytes: maxBytes)
        let (stream, continuation) = AsyncStream.makeStream(of: MediaFrame.self, bufferingPolicy: .bufferingNewest(256))
        var feeders: [(task: Task<Void, Never>, end: @Sendable () -> Void)] = []
        for track in tracks {
            // A remote track's frames as received (no re-encoding), except for WAV, which
            // takes the decoded audio; a local track's frames as pushed.
            if format != .wav, let (encoded, end) = track.remoteEncodedFrames?() {
                feeders.append((Task { for await frame in encoded { continuation.yield(.encoded(frame)) } }, end))
                // A file with video begins at a keyframe: ask for one rather than wait for the next.
                track.requestKeyframe()
            } else {
                let (frames, end) = track.framesSubscription()
                feeders.append((Task { for await frame in frames { continuation.yield(frame) } }, end))
            }
        }
        let hasVideo = tracks.contains { $0.kind == .video }, hasAudio = tracks.contains { $0.kind == .audio }
        let video = tracks.filter { $0.kind == .video }
        let writer = Task {
            let missing: Nothing?
            do throws(MediaFileError) {
                switch format {
                case .wav: missing = try await writeWAV(stream, to: parts, trimming: trimming)
                case .oggOpus: missing = try await writeOgg(stream, to: parts, trimming: trimming)
                case .webm:
                    missing = try await writeWebM(
                        stream,
                        to: parts,
                        hasVideo: hasVideo,
                        hasAudio: hasAudio,
                        trimming: trimming,
                        requestKeyframe: { for track in video { track.requestKeyframe() } }
                    )
                }
            } catch {
                throw MediaRecorderError.file(error)
            }
            if let missing { throw MediaRecorderError.nothingRecorded(path: url.path, reason: missing.rawValue) }
        }
        return Recording(parts: parts, feeders: feeders, finish: { continuation.finish() }, writer: writer)
    }

    /// What a file that got nothing lacked (``MediaRecorderError/nothingRecorded(path:reason:)``).
    package enum Nothing: String {
        case audio = "no audio was received"
        case videoKeyframe = "no video keyframe was received"
    }

    static func writeWAV(
        _ frames: AsyncStream<MediaFrame>,
        to parts: RecordingParts,
        trimming: SilenceTrimming?
    ) async throws(MediaFileError) -> Nothing? {
        var writer: WAVWriter?
        var decoder: OpusDecoder?
        var url = parts.files[0]
        var progress = RecordingParts.Progress()
        frames: for await frame in frames {
            let pcm: AudioFrame
            switch frame {
            case .audio(let audio): pcm = audio
            case .encoded(let encoded) where encoded.codec == .opus:
                if decoder == nil { decoder = try? OpusDecoder(channels: 2) }
                guard let decoded = try? decoder?.decode(encoded) else { continue }
                pcm = decoded
            default: continue
            }
            if writer != nil, parts.isDue(progress) {
                try writer?.close()
                writer = nil
                url = try parts.next()
                progress = RecordingParts.Progress()
            }
            if writer == nil { writer = try WAVWriter(path: url.path, channels: pcm.channels, trimming: trimming) }
            try writer?.write(pcm)
            progress.bytes += pcm.samples.count * 2
            guard parts.wrote(pcm.samples.count * 2) else { break frames }
        }
        guard let writer else { return .audio }
        try writer.close()
        return nil
    }
}
