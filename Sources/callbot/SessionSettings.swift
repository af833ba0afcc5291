import Foundation
import SwiftRTC

/// What every session of a `whip-server` run sends and records.
struct SessionSettings: Sendable {
    enum Send: Sendable {
        case none, echo
        case audio(AudioInput)
        case video(VideoInput)
    }

    var configuration: PeerConnection.Configuration
    var audio: Send
    var video: Send
    var statsInterval: Duration
    var statsJSON = false
    var recording: Recording?
    var trimming: SilenceTrimming?
    /// When a recording goes on in a new file.
    var rollover: MediaRecorder.Rollover?
    /// The most media bytes one session records.
    var recordMaxBytes: Int
    /// Whether the peer's data channels are echoed (`--echo-data`).
    var echoData = false

    /// Where the sessions record (`--record DIR`, as for `call` and `answer`): one file per
    /// session, `whip-YYYYMMDD-HHMMSS.webm` from this side's clock (UTC, when it was answered;
    /// `callbot whep`'s `whep-...`), `-2`... when that name is taken (nothing from the offer or
    /// the peer goes into a name).
    struct Recording: Sendable {
        var folder: RecordingFolder

        init(_ record: String) throws {
            do { folder = try RecordingFolder(URL(fileURLWithPath: record)) } catch {
                throw CallbotError("--record \(record): \(error)")
            }
        }

        /// A session's file name without its extension: `prefix-YYYYMMDD-HHMMSS` at `date`.
        static func base(_ prefix: String, at date: Date) -> String {
            let format = DateFormatter()
            format.locale = Locale(identifier: "en_US_POSIX")
            format.timeZone = TimeZone(identifier: "UTC")
            format.dateFormat = "yyyyMMdd-HHmmss"
            return prefix + "-" + format.string(from: date)
        }
    }

    /// The session's local tracks: `send` are added to the connection; `echo` are those of
    /// them that repeat the received media.
    func makeMedia() -> (send: CallMedia, echo: CallMedia) {
        var inputs = (audio: AudioInput?.none, video: VideoInput?.none)
        if case let .audio(input) = audio { inputs.audio = input }
        if case let .video(input) = video { inputs.video = input }
        var send = CallMedia.make(audio: inputs.audio, video: inputs.video)
        var echo = CallMedia()
        if case .echo = audio {
            echo.audio = MediaStreamTrack(kind: .audio)
            send.audio = echo.audio
        }
        if case .echo = video {
            echo.video = MediaStreamTrack(kind: .video)
            send.video = echo.video
        }
        return (send, echo)
    }
}
