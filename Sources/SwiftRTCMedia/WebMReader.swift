import CAVFormat
import SwiftRTCCore
import Synchronization

/// Plays one track of a WebM file, Opus audio or VP8 video, as ``EncodedFrame``s without
/// decoding: what ``WebMRecorder``, `ffmpeg` and browsers' MediaRecorder write. Demuxing is
/// FFmpeg's libavformat (the library the recorder muxes with), packet by packet.
///
/// Timestamps are the packets' presentation times on the codec's RTP clock (48 kHz for Opus,
/// 90 kHz for VP8), counted from the track's first packet. A file is input like any other:
/// a packet larger than ``RemoteInputLimits/maxEncodedVideoFrameBytes`` is an error, and a
/// time that goes backwards or jumps more than ``RemoteInputLimits/maxTimestampJump``
/// seconds is placed 20 ms after the previous packet (counted in ``timestampJumps``), so that
/// playing it in real time never stalls for the file's word.
public struct WebMReader: MediaSource, Sendable {
    /// Which of the file's tracks to read.
    public enum Track: Sendable, Hashable {
        /// The first Opus track.
        case audio
        /// The first VP8 track.
        case video
    }

    /// The track read.
    public let track: Track
    /// The video track's picture size (nil for audio).
    public let width: Int?
    public let height: Int?
    /// The audio track's channel count (nil for video).
    public let channels: Int?
    private let demuxer: Demuxer

    static let format = "WebM"

    /// Opens `path` and finds its `track`; frames are read by ``readFrame()``.
    public init(path: String, track: Track) throws(MediaFileError) {
        demuxer = try Demuxer(path: path, track: track)
        self.track = track
        (width, height, channels) = (demuxer.width, demuxer.height, demuxer.channels)
    }

    /// The tracks `path` holds that a reader can read (audio, video, both), or an error when
    /// it is no WebM/Matroska file.
    public static func tracks(in path: String) throws(MediaFileError) -> Set<Track> {
        var tracks = Set<Track>()
        for track in [Track.audio, .video] {
            do {
                _ = try Demuxer(path: path, track: track)
                tracks.insert(track)
            } catch {
                if case .invalidField(_, _, "track", _) = error { continue }
                throw error
            }
        }
        return tracks
    }

    /// Packets whose time went backwards or jumped, placed 20 ms after the one before.
    public var timestampJumps: Int { demuxer.timestampJumps }

    /// The next frame of the track, `nil` at the end of the file.
    public mutating func readFrame() throws(MediaFileError) -> EncodedFrame? { try demuxer.next() }
}

/// libavformat's demuxer on one file, behind a lock (the reader is Sendable; a copy of a
/// reader shares its position, as for the other file readers).
final class Demuxer: Sendable {
    private struct State: ~Copyable {
        var context: UnsafeMutablePointer<AVFormatContext>?
        var packet: UnsafeMutablePointer<AVPacket>?
        var first: Int64?
        var last: Int64?
        var jumps = 0
    }

    let streamIndex: Int32
    let codec: EncodedFrame.Codec
    let timeBase: (num: Int64, den: Int64)
    let width: Int?, height: Int?, channels: Int?
    private let state: Mutex<State>

    init(path: String, track: WebMReader.Track) throws(MediaFileError) {
        var context: UnsafeMutablePointer<AVFormatContext>?
        let opened = avformat_open_input(&context, path, av_find_input_format("matroska"), nil)
        guard opened >= 0, let context else {
            if opened == CAVFormat_error(ENOENT) { throw .io(path: path, operation: "open", errno: ENOENT) }
            throw .badMagic(format: WebMReader.format, expected: "an EBML header (1A 45 DF A3) of a WebM/Matroska file")
        }
        var owned: UnsafeMutablePointer<AVFormatContext>? = context
        do throws(MediaFileError) {
            try MediaFileError.checkFFmpeg(avformat_find_stream_info(context, nil), "avformat_find_stream_info")
            let wanted = track == .audio ? AV_CODEC_ID_OPUS : AV_CODEC_ID_VP8
            var found: (Int32, UnsafeMutablePointer<AVStream>)?
            for index in 0..<Int(context.pointee.nb_streams) {
                guard let stream = context.pointee.streams[index], stream.pointee.codecpar.pointee.codec_id == wanted
                else { continue }
                found = (Int32(index), stream)
                break
            }
            guard let (index, stream) = found else {
                throw MediaFileError.invalidField(
                    format: WebMReader.format,
                    offset: 0,
                    field: "track",
                    value: "no \(track == .audio ? "Opus audio" : "VP8 video") track"
                )
            }
            let parameters = stream.pointee.codecpar.pointee
            streamIndex = index
            codec = track == .audio ? .opus : .vp8
            timeBase = (Int64(stream.pointee.time_base.num), Int64(stream.pointee.time_base.den))
            guard timeBase.num > 0, timeBase.den > 0 else {
                throw MediaFileError.invalidField(
                    format: WebMReader.format,
                    offset: 0,
                    field: "time base",
                    value: "\(timeBase.num)/\(timeBase.den)"
                )
            }
            width = track == .video ? Int(parameters.width) : nil
            height = track == .video ? Int(parameters.height) : nil
            channels = track == .audio ? Int(parameters.ch_layout.nb_channels) : nil
            guard let packet = av_packet_alloc() else {
                throw MediaFileError.unusable(format: WebMReader.format, reason: "out of memory")
            }
            state = Mutex(State(context: context, packet: packet))
            owned = nil
        } catch {
            if owned != nil { avformat_close_input(&owned) }
            throw error
        }
    }

    deinit {
        state.withLock { state in
            av_packet_free(&state.packet)
            avformat_close_input(&state.context)
        }
    }

    var timestampJumps: Int { state.withLock { $0.jumps } }

    /// The next packet of the stream as a frame, nil at the end of the file.
    func next() throws(MediaFileError) -> EncodedFrame? {
        try state.withLock { (state) throws(MediaFileError) -> EncodedFrame? in
            guard let context = state.context, let packet = state.packet else { return nil }
            while true {
                let result = av_read_frame(context, packet)
                if result == CAVFormat_eof() { return nil }
                try MediaFileError.checkFFmpeg(result, "av_read_frame")
                defer { av_packet_unref(packet) }
                guard packet.pointee.stream_index == streamIndex, packet.pointee.size > 0,
                    let data = packet.pointee.data
                else { continue }
                let size = Int(packet.pointee.size)
                guard size <= RemoteInputLimits.maxEncodedVideoFrameBytes else {
                    throw .invalidField(
                        format: WebMReader.format,
                        offset: Int(packet.pointee.pos),
                        field: "frame size",
                        value: "\(size)"
                    )
                }
                let clock = Int64(codec.clockRate)
                let raw = packet.pointee.pts != Int64.min ? packet.pointee.pts : packet.pointee.dts
                // The file's time on the codec clock, from the track's first packet; backwards
                // or beyond the jump limit: 20 ms after the previous packet.
                var ticks = raw == Int64.min ? nil : Self.ticks(raw, timeBase: timeBase, clock: clock)
                if let first = state.first, let value = ticks {
                    ticks = value &- first
                } else if let value = ticks {
                    state.first = value
                    ticks = 0
                }
                let step = clock / 50
                if let last = state.last {
                    if let value = ticks, value >= last,
                        value - last <= Int64(RemoteInputLimits.maxTimestampJump) * clock
                    {
                        state.last = value
                    } else {
                        state.jumps += 1
                        state.last = last + step
                    }
                } else {
                    state.last = ticks ?? 0
                }
                let timestamp = UInt32(truncatingIfNeeded: state.last ?? 0)
                let bytes = Array(UnsafeBufferPointer(start: data, count: size))
                let isKeyframe = codec == .opus || packet.pointee.flags & AV_PKT_FLAG_KEY != 0
                return EncodedFrame(
                    codec: codec,
                    data: bytes,
                    timestamp: timestamp,
                    isKeyframe: isKeyframe,
                    width: codec == .vp8 && isKeyframe ? width : nil,
                    height: codec == .vp8 && isKeyframe ? height : nil
                )
            }
        }
    }

    /// `value` in `timeBase` units on a `clock` of ticks per second, saturating instead of trapping.
    static func ticks(_ value: Int64, timeBase: (num: Int64, den: Int64), clock: Int64) -> Int64 {
        let (scaled, overflow) = value.multipliedReportingOverflow(by: timeBase.num * clock)
        guard !overflow else { return value < 0 ? Int64.min / 2 : Int64.max / 2 }
        return scaled / timeBase.den
    }
}
