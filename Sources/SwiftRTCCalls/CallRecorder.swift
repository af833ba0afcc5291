import Foundation
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCPeer
import SwiftRTCRTP
import SwiftRTCSignaling
import Synchronization

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
/// Each file takes a name no file has yet when its participant's recording starts (a second
/// recording in the same call, or a participant who comes back, gets `-2`...); a file that
/// got nothing is removed. The writing is ``MediaRecorder``'s: a WebM with video starts at
/// the first VP8 keyframe (audio before it held), and with `trimming` leading and trailing
/// silence is left out.
final class CallRecorder: Sendable {
    private struct Recording {
        let continuation: AsyncStream<MediaFrame>.Continuation
        let writer: Task<[URL], Never>
        var feeders: [Task<Void, Never>] = []
        /// The user's video, for the keyframe a new part begins with.
        let videoTracks: Locked<[MediaStreamTrack]>
    }

    let option: RecordingOption
    let folder: RecordingFolder
    /// The first part of every file name of this recording, made here.
    let name: String
    private let withVideo: Bool
    private let trimming: SilenceTrimming?
    private let recordings = Mutex<[String: Recording]>([:])
    private let local: Task<[URL], Never>?
    /// When a file goes on in a new part.
    private let rollover: MediaRecorder.Rollover?
    /// Told what failed when a file cannot be written (the session's ``CallSessionEvent/recordingFailed(reason:)``).
    private let onFailure: @Sendable (String) -> Void

    init(
        option: RecordingOption,
        folder: RecordingFolder,
        name: String,
        localUser: String,
        localAudio: MediaStreamTrack,
        videoCall: Bool,
        trimming: SilenceTrimming? = nil,
        rollover: MediaRecorder.Rollover? = nil,
        onFailure: @escaping @Sendable (String) -> Void
    ) {
        self.onFailure = onFailure
        self.rollover = rollover
        self.option = option
        self.folder = folder
        self.name = name
        self.trimming = trimming
        withVideo = videoCall && (option == .remoteAudioVideo || option == .localAudioRemoteAudioVideo)
        if option == .localAndRemoteAudio || option == .localAudioRemoteAudioVideo {
            let base = Self.fileBase(name, localUser)
            let frames = localAudio.frames()
            local = Self.write(base: base, extension: "ogg", folder: folder, rollover: rollover, onFailure: onFailure) {
                parts throws(MediaFileError) in
                try await MediaRecorder.writeOgg(frames, to: parts, trimming: trimming)
            }
        } else {
            local = nil
        }
    }

    /// Reserves `<base>.<extension>` (or the next free name) and runs `write` into it and,
    /// with a `rollover`, its parts: the files written; none (the empty file removed) if
    /// nothing came or the first file failed. After a failure (told to `onFailure`) in a
    /// later part, the parts written before it stay.
    private static func write(
        base: String,
        extension ext: String,
        folder: RecordingFolder,
        rollover: MediaRecorder.Rollover?,
        onFailure: @escaping @Sendable (String) -> Void,
        _ write: @escaping @Sendable (RecordingParts) async throws(MediaFileError) -> MediaRecorder.Nothing?
    ) -> Task<[URL], Never> {
        Task {
            let url: URL
            do { url = try folder.createFile(base: base, extension: ext) } catch {
                onFailure("recording \(folder.url.appendingPathComponent(base).path).\(ext): \(error)")
                return []
            }
            let parts = RecordingParts(first: url, rollover: rollover)
            do {
                if try await write(parts) == nil { return parts.files }
            } catch {
                SwiftRTCLogging.logger("calls").warning("recording \(url.path): \(error)")
                onFailure("recording \(url.path): \(error)")
                if parts.files.count > 1 { return parts.files }
            }
            try? FileManager.default.removeItem(at: url)
            return []
        }
    }

    /// The name part of a recording started at `date`: `call-YYYYMMDD-HHMMSS` (UTC), from
    /// this side's clock alone.
    static func recordingName(startedAt date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "call-%04d%02d%02d-%02d%02d%02d",
            Int(parts.tm_year) + 1900,
            Int(parts.tm_mon) + 1,
            Int(parts.tm_mday),
            Int(parts.tm_hour),
            Int(parts.tm_min),
            Int(parts.tm_sec)
        )
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
                let (frames, continuation) = AsyncStream.makeStream(
                    of: MediaFrame.self,
                    bufferingPolicy: .bufferingNewest(256)
                )
                let (withVideo, trimming) = (withVideo, trimming)
                let videoTracks = Locked<[MediaStreamTrack]>([])
                let writer = Self.write(
                    base: Self.fileBase(name, user),
                    extension: withVideo ? "webm" : "ogg",
                    folder: folder,
                    rollover: rollover,
                    onFailure: onFailure
                ) { parts throws(MediaFileError) in
                    withVideo
                        ? try await MediaRecorder.writeWebM(
                            frames,
                            to: parts,
                            hasVideo: true,
                            hasAudio: true,
                            trimming: trimming,
                            requestKeyframe: { for track in videoTracks.withLock({ $0 }) { track.requestKeyframe() } }
                        )
                        : try await MediaRecorder.writeOgg(frames, to: parts, trimming: trimming)
                }
                recordings[user] = Recording(continuation: continuation, writer: writer, videoTracks: videoTracks)
            }
            if receiver.kind == .video { recordings[user]!.videoTracks.withLock { $0.append(receiver.track) } }
            let continuation = recordings[user]!.continuation
            recordings[user]!.feeders.append(
                Task {
                    for await frame in encoded { continuation.yield(.encoded(frame)) }
                }
            )
        }
    }

    /// Ends `user`'s file (they left); returns its files written.
    func remove(user: String) async -> [URL] {
        guard let recording = recordings.withLock({ $0.removeValue(forKey: user) }) else { return [] }
        return await Self.end(recording)
    }

    /// Ends every file; returns those written.
    func finish() async -> [URL] {
        let all = recordings.withLock { recordings in
            defer { recordings = [:] }
            return Array(recordings.values)
        }
        var groups: [[URL]] = []
        for recording in all { groups.append(await Self.end(recording)) }
        // The local track's stream ends when the track stops; until then end it here.
        local?.cancel()
        groups.append(await local?.value ?? [])
        // By name, each file followed by its parts in order.
        return groups.filter { !$0.isEmpty }.sorted { $0[0].path < $1[0].path }.flatMap { $0 }
    }

    private static func end(_ recording: Recording) async -> [URL] {
        for feeder in recording.feeders { feeder.cancel() }
        recording.continuation.finish()
        return await recording.writer.value
    }
}
