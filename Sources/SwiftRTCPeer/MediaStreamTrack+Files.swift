import Foundation
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCRTP
import SwiftRTCSDP

extension MediaStreamTrack {
    /// Plays a media file into the track in real time, in one line:
    ///
    /// ```swift
    /// let playback = try audio.play(file: "hello.wav")
    /// try await playback.finished()
    /// ```
    ///
    /// WAV (any rate, converted to 48 kHz) and Ogg Opus play into an audio track; IVF (VP8) and
    /// Y4M into a video track; a WebM's Opus or VP8 track into the track of its kind. Encoded
    /// files (Ogg Opus, IVF, WebM) are sent as they are, without re-encoding. With `loop` the
    /// file starts over at its end, its timestamps carried on so the peer sees one stream,
    /// until ``Playback/stop()`` or the track stops. The format is told by the file's first
    /// bytes. A file that does not open, or that this track's kind cannot play, is an error
    /// here; one that turns bad later ends the playback with its error (``Playback/finished()``).
    @discardableResult
    public func play(file path: String, loop: Bool = false) throws(MediaFileError) -> Playback {
        let format = try MediaFileKind(path: path)
        guard format.kinds.contains(kind) else {
            throw .unusable(
                format: format.name,
                reason:
                    "\(path) has no \(kind == .audio ? "audio" : "video") for a \(kind == .audio ? "audio" : "video") track"
            )
        }
        switch format {
        case .wav:
            return play(try LoopingSource(loop: loop) { () throws(MediaFileError) in try WAVReader(path: path) })
        case .oggOpus:
            return play(try LoopingSource(loop: loop) { () throws(MediaFileError) in try OggOpusReader(path: path) })
        case .ivf:
            return play(try LoopingSource(loop: loop) { () throws(MediaFileError) in try IVFReader(path: path) })
        case .y4m:
            return play(try LoopingSource(loop: loop) { () throws(MediaFileError) in try Y4MReader(path: path) })
        case .webm:
            let track: WebMReader.Track = kind == .audio ? .audio : .video
            return play(
                try LoopingSource(loop: loop) { () throws(MediaFileError) in try WebMReader(path: path, track: track) }
            )
        }
    }
}

extension MediaStreamTrack {
    /// The kinds of track `path` can be played into (``play(file:loop:)``): audio for WAV and
    /// Ogg Opus, video for IVF and Y4M, those a WebM has tracks of.
    public static func kinds(inFile path: String) throws(MediaFileError) -> Set<MediaKind> {
        let format = try MediaFileKind(path: path)
        guard format == .webm else { return format.kinds }
        return Set(try WebMReader.tracks(in: path).map { $0 == .audio ? MediaKind.audio : .video })
    }
}

/// The media files a track plays, told by their first bytes.
enum MediaFileKind {
    case wav, oggOpus, ivf, y4m, webm

    init(path: String) throws(MediaFileError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .io(path: path, operation: "open", errno: errno == 0 ? ENOENT : errno)
        }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 12)) ?? Data())
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts(Array("RIFF".utf8)), starts(Array("WAVE".utf8), at: 8) {
            self = .wav
        } else if starts(Array("OggS".utf8)) {
            self = .oggOpus
        } else if starts(Array("DKIF".utf8)) {
            self = .ivf
        } else if starts(Array("YUV4MPEG2".utf8)) {
            self = .y4m
        } else if starts([0x1A, 0x45, 0xDF, 0xA3]) {
            self = .webm
        } else {
            throw .badMagic(format: "media file", expected: "WAV, Ogg Opus, IVF, Y4M or WebM")
        }
    }

    var name: String {
        switch self {
        case .wav: "WAV"
        case .oggOpus: "Ogg Opus"
        case .ivf: "IVF"
        case .y4m: "Y4M"
        case .webm: "WebM"
        }
    }

    /// The kinds of track it can feed (a WebM may have either).
    var kinds: Set<MediaKind> {
        switch self {
        case .wav, .oggOpus: [.audio]
        case .ivf, .y4m: [.video]
        case .webm: [.audio, .video]
        }
    }
}

/// A file source that starts over at its end when looping, each pass's timestamps moved on by
/// the passes before (their last timestamp plus one frame), so they follow on.
struct LoopingSource<Reader: MediaSource & Sendable>: MediaSource, Sendable where Reader.Frame: ShiftableFrame {
    let open: @Sendable () throws(MediaFileError) -> Reader
    let loop: Bool
    var reader: Reader
    /// Ticks added to this pass's timestamps.
    var offset: UInt64 = 0
    /// The last timestamp handed out (shifted) and the last step between two frames.
    var last: UInt64?
    var step: UInt64 = 0

    init(loop: Bool, open: @escaping @Sendable () throws(MediaFileError) -> Reader) throws(MediaFileError) {
        self.open = open
        self.loop = loop
        reader = try open()
    }

    mutating func readFrame() throws -> Reader.Frame? {
        var frame = try reader.readFrame()
        if frame == nil, loop, let last {
            reader = try open()
            offset = last &+ max(step, 1)
            frame = try reader.readFrame()
            guard frame != nil else { return nil }
            // The new pass's first frame is at `offset`: its own timestamp counts from there.
            offset &-= frame!.mediaTimestamp
        }
        guard let frame else { return nil }
        let shifted = frame.shifted(by: offset)
        let mask: UInt64 = Reader.Frame.timestampBits < 64 ? (1 << UInt64(Reader.Frame.timestampBits)) - 1 : .max
        if let last { step = (shifted.mediaTimestamp &- last) & mask }
        last = shifted.mediaTimestamp
        return shifted
    }
}

/// A frame whose timestamp can be moved (wrapping for RTP timestamps).
protocol ShiftableFrame: TimedFrame {
    func shifted(by ticks: UInt64) -> Self
}

extension AudioFrame: ShiftableFrame {
    func shifted(by ticks: UInt64) -> AudioFrame {
        var frame = self
        frame.timestamp &+= ticks
        return frame
    }
}

extension VideoFrame: ShiftableFrame {
    func shifted(by ticks: UInt64) -> VideoFrame {
        var frame = self
        frame.timestamp &+= ticks
        return frame
    }
}

extension EncodedFrame: ShiftableFrame {
    func shifted(by ticks: UInt64) -> EncodedFrame {
        var frame = self
        frame.timestamp &+= UInt32(truncatingIfNeeded: ticks)
        return frame
    }
}
