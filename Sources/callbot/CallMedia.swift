import Foundation
import SwiftRTC

/// The local tracks a call sends, made from `--audio`/`--video` (or nothing with
/// `--no-audio`/`--no-video`); ``start()`` plays each source into its track in real time.
struct CallMedia: Sendable {
    var audio: MediaStreamTrack?
    var video: MediaStreamTrack?
    /// Starts the sources (once the call is connected: a file's first keyframe must not be
    /// sent into the void, since a passed-through file cannot make another on request).
    private var starters: [@Sendable () -> Void] = []

    /// Plays the sources into the tracks.
    func start() { for start in starters { start() } }

    /// Plays the sources once `session` has its first connection (until then the sender drops
    /// frames: a greeting would lose what played while the call rang, a file its first
    /// keyframe). Call it before `startCall` or `acceptCall`, so the event cannot be missed;
    /// cancel the task when the call ends.
    func start(whenConnected session: CallSession) async -> Task<Void, Never> {
        let events = await session.events()
        return Task {
            for await event in events {
                guard case .connected = event else { continue }
                start()
                return
            }
        }
    }

    /// Tracks for the chosen sources. `audio`/`video` nil means the kind is not sent.
    /// With `audioTrack`/`videoTrack`, plays into those (a call session's local tracks).
    static func make(
        audio: AudioInput?,
        video: VideoInput?,
        audioTrack: MediaStreamTrack? = nil,
        videoTrack: MediaStreamTrack? = nil
    ) -> CallMedia {
        var media = CallMedia()
        if let audio {
            let track = audioTrack ?? MediaStreamTrack(kind: .audio)
            media.starters.append { play(audio, into: track) }
            media.audio = track
        }
        if let video {
            let track = videoTrack ?? MediaStreamTrack(kind: .video)
            media.starters.append { play(video, into: track) }
            media.video = track
        }
        return media
    }

    private static func play(_ audio: AudioInput, into track: MediaStreamTrack) {
        switch audio {
        case .tone: track.play(ToneGenerator())
        case .silence: track.play(SilenceSource())
        case let .file(path):
            switch AudioInput.format(of: path) {
            case .wav:
                playFile(track) {
                    try WAVReader(path: path)
                } frame: {
                    .audio($0)
                }
            case .oggOpus:
                playFile(track) {
                    try OggOpusReader(path: path)
                } frame: {
                    .encoded($0)
                }
            case nil: break  // rejected by validation
            }
        }
    }

    private static func play(_ video: VideoInput, into track: MediaStreamTrack) {
        switch video {
        case .pattern: track.play(TestPatternSource())
        case .black: track.play(BlackFrameSource())
        case let .file(path):
            switch VideoInput.format(of: path) {
            case .y4m:
                playFile(track) {
                    try Y4MReader(path: path)
                } frame: {
                    .video($0)
                }
            case .ivf:
                playFile(track) {
                    try IVFReader(path: path)
                } frame: {
                    .encoded($0)
                }
            case nil: break
            }
        }
    }

    /// Plays a file reader (opened inside the playing task, as readers are not Sendable)
    /// into `track` in real time, until the file ends or the track stops.
    private static func playFile<Reader: MediaSource & SendableMetatype>(
        _ track: MediaStreamTrack,
        open: @escaping @Sendable () throws -> Reader,
        frame: @escaping @Sendable (Reader.Frame) -> MediaFrame
    ) {
        Task {
            do {
                for try await next in try open().frames(pacing: .realTime) {
                    guard !track.isEnded else { return }
                    track.push(frame(next))
                }
            } catch {
                SwiftRTCLogging.logger("callbot").error("media file: \(error)")
            }
        }
    }

    func stop() {
        audio?.stop()
        video?.stop()
    }
}
