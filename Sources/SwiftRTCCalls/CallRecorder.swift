import Foundation
import Synchronization
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCPeer
import SwiftRTCRTP
import SwiftRTCSignaling

/// Records a call, by ``RecordingOption``, into a ``RecordingFolder``:
///
/// - the remote side: one file per remote participant, `<name>-<user>.webm` (Opus + VP8,
///   the received frames as they are, no re-encoding) for the options with remote video,
///   `<name>-<user>.ogg` (Ogg Opus) for the audio-only ones;
/// - the local audio (options with local audio): `<name>-<local user>.ogg`, the local
///   track's PCM encoded with Opus.
///
/// `<name>` is made here (``recordingName(startedAt:)``), never taken from the session id,
/// which the caller chose; `<user>` is the user id through ``RecordingFolder/safeName(_:)``.
/// Each file is created when its first frame arrives, under a name no file has yet (a second
/// recording in the same call, or a participant who comes back, gets `-2`...).
///
/// A WebM with video starts at the first VP8 keyframe (audio before it is held, at most
/// ``maximumHeldFrames``).
final class CallRecorder: Sendable {
    static let maximumHeldFrames = 500

    private struct Recording {
        let continuation: AsyncStream<EncodedFrame>.Continuation
        let writer: Task<URL?, Never>
        var feeders: [Task<Void, Never>] = []
    }

    let option: RecordingOption
    let folder: RecordingFolder
    /// The first part of every file name of this recording, made here.
    let name: String
    private let withVideo: Bool
    private let recordings = Mutex<[String: Recording]>([:])
    private let local: Task<URL?, Never>?
    /// Told what failed when a file cannot be written (the session's ``CallSessionEvent/recordingFailed(reason:)``).
    private let onFailure: @Sendable (String) -> Void

    init(option: RecordingOption, folder: RecordingFolder, name: String, localUser: String, localAudio: MediaStreamTrack, videoCall: Bool,
         onFailure: @escaping @Sendable (String) -> Void) {
        self.onFailure = onFailure
        self.option = option
        self.folder = folder
        self.name = name
        withVideo = videoCall && (option == .remoteAudioVideo || option == .localAudioRemoteAudioVideo)
        if option == .localAndRemoteAudio || option == .localAudioRemoteAudioVideo {
            let base = Self.fileBase(name, localUser)
            let frames = localAudio.frames()
            local = Task {
                var writer: OggOpusWriter?
                var encoder: OpusEncoder?
                var url: URL?
                for await frame in frames {
                    guard case .audio(let audio) = frame else { continue }
                    do {
                        if encoder == nil {
                            encoder = try OpusEncoder(configuration: OpusEncoderConfiguration(channels: audio.channels))
                            let file = try folder.createFile(base: base, extension: "ogg")
                            url = file
                            writer = try OggOpusWriter(path: file.path, head: OpusHead(channels: audio.channels))
                        }
                        if let packet = try? encoder?.encode(audio) { try writer?.write(packet) }
                    } catch {
                        SwiftRTCLogging.logger("calls").warning("recording \(url?.path ?? base): \(error)")
                        onFailure("recording \(url?.path ?? base): \(error)")
                        return nil
                    }
                }
                try? writer?.close()
                return writer == nil ? nil : url
            }
        } else {
            local = nil
        }
    }

    /// The name part of a recording started at `date`: `call-YYYYMMDD-HHMMSS` (UTC), from
    /// this side's clock alone.
    static func recordingName(startedAt date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "call-%04d%02d%02d-%02d%02d%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    /// `<name>-<user>`, the user id reduced to a safe name part.
    static func fileBase(_ name: String, _ user: String) -> String {
        "\(name)-\(RecordingFolder.safeName(user))"
    }

    /// Records what `receiver` gets from `user` (audio always; video for the video options).
    func add(user: String, receiver: RTPReceiver) {
        guard receiver.kind == .audio || (withVideo && receiver.kind == .video) else { return }
        let encoded = receiver.encodedFrames()
        // The file starts at a keyframe: ask for one rather than wait for the next.
        if receiver.kind == .video { receiver.track.requestKeyframe() }
        recordings.withLock { recordings in
            if recordings[user] == nil {
                let (frames, continuation) = AsyncStream.makeStream(of: EncodedFrame.self, bufferingPolicy: .bufferingNewest(256))
                recordings[user] = Recording(continuation: continuation, writer: writer(for: user, frames: frames))
            }
            let continuation = recordings[user]!.continuation
            recordings[user]!.feeders.append(Task {
                for await frame in encoded { continuation.yield(frame) }
            })
        }
    }

    private func writer(for user: String, frames: AsyncStream<EncodedFrame>) -> Task<URL?, Never> {
        let base = Self.fileBase(name, user)
        let (folder, withVideo, onFailure) = (folder, withVideo, onFailure)
        return Task {
            var url: URL?
            do {
                if !withVideo {
                    var writer: OggOpusWriter?
                    for await frame in frames where frame.codec == .opus {
                        if writer == nil {
                            let file = try folder.createFile(base: base, extension: "ogg")
                            url = file
                            writer = try OggOpusWriter(path: file.path, head: OpusHead(channels: 2))
                        }
                        try writer?.write(frame)
                    }
                    try writer?.close()
                    return writer == nil ? nil : url
                }
                var recorder: WebMRecorder?
                var held: [EncodedFrame] = []
                for await frame in frames {
                    if recorder == nil {
                        guard frame.codec == .vp8, frame.isKeyframe, let size = MediaRecorder.pictureSize(of: frame) else {
                            if frame.codec == .opus, held.count < Self.maximumHeldFrames { held.append(frame) }
                            continue
                        }
                        let file = try folder.createFile(base: base, extension: "webm")
                        url = file
                        recorder = try WebMRecorder(path: file.path, audio: OpusHead(channels: 2), video: .init(width: size.width, height: size.height))
                        for early in held { try recorder?.write(early) }
                        held = []
                    }
                    try recorder?.write(frame)
                }
                try recorder?.close()
                return recorder == nil ? nil : url
            } catch {
                SwiftRTCLogging.logger("calls").warning("recording \(url?.path ?? base): \(error)")
                onFailure("recording \(url?.path ?? base): \(error)")
                return nil
            }
        }
    }

    /// Ends `user`'s file (they left); returns it if it was written.
    func remove(user: String) async -> URL? {
        guard let recording = recordings.withLock({ $0.removeValue(forKey: user) }) else { return nil }
        return await Self.end(recording)
    }

    /// Ends every file; returns those written.
    func finish() async -> [URL] {
        let all = recordings.withLock { recordings in
            defer { recordings = [:] }
            return Array(recordings.values)
        }
        var urls: [URL] = []
        for recording in all { if let url = await Self.end(recording) { urls.append(url) } }
        // The local track's stream ends when the track stops; until then end it here.
        local?.cancel()
        if let url = await local?.value { urls.append(url) }
        return urls.sorted { $0.path < $1.path }
    }

    private static func end(_ recording: Recording) async -> URL? {
        for feeder in recording.feeders { feeder.cancel() }
        recording.continuation.finish()
        return await recording.writer.value
    }
}
