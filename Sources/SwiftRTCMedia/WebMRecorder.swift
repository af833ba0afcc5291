import CAVFormat
import Glibc
import SwiftRTCCodecs
import SwiftRTCCore

/// Records Opus and VP8 ``EncodedFrame``s together into a WebM file, as they are (no
/// re-encoding), with audio and video on one timeline.
///
/// Muxing is FFmpeg's libavformat Matroska/WebM muxer (Debian `libavformat-dev`), driven
/// through its C API: it is maintained, what `ffmpeg` itself writes WebM with, and
/// Chromium and ffprobe read its output. (GStreamer's `webmmux` would need a whole pipeline
/// and main loop for the same; Google's libwebm is C++ only, which Swift would reach through
/// C++ interop across the whole module.)
///
/// Timing: each track's frames are placed by their RTP timestamps (unwrapped, relative to
/// the track's first frame) after the track's start, which is, by ``TrackStart``, the
/// wall-clock time its first frame arrived since the recording began (`startedAt`; live
/// streams: frames held until the recorder could be made pass their `arrival`) or zero for
/// every track (files fed as fast as possible). A frame written
/// with an `at` time (for example from RTCP sender reports) is placed there instead. Video starts at its first keyframe (frames
/// before it are skipped); a frame whose time goes backwards is dropped. Both are counted.
///
/// Silence trimming (optional, ``SilenceTrimming``): speech is decided on the decoded audio
/// passed with each Opus frame; nothing before the first speech is kept but the audio
/// pre-roll (the timeline is shifted so that it starts at zero, video resuming at its next
/// keyframe), and frames after the last speech are held back and, on close, dropped beyond
/// the post-roll. Held frames are written once speech resumes (or after 30 s of silence).
///
/// Crash safety: the file is written as the muxer's clusters close, every
/// `clusterDuration` (1 s by default), and the output is flushed after every frame, so a
/// recording stopped by a crash or SIGKILL is a playable WebM (segment of unknown size, no
/// index) holding everything up to the last closed cluster. ``close()`` writes the duration
/// and the cue index. Not thread-safe: feed one recorder from one place at a time.
public final class WebMRecorder {
    /// The video track's picture size (as in the VP8 keyframes).
    public typealias VideoFormat = VideoSize

    /// Where each track begins on the recording's timeline.
    public enum TrackStart: Sendable, Hashable {
        /// When its first frame arrives, measured from the recorder's creation (live input).
        case arrival
        /// At zero, for every track (input that is not live, e.g. files).
        case zero
    }

    /// Frames not written: video before the first keyframe, or frames out of time order.
    public private(set) var skippedFrames = 0
    /// Frames whose RTP timestamp jumped more than ``RemoteInputLimits/maxTimestampJump``
    /// seconds from the previous frame of their track (placed 20 ms after it).
    public private(set) var timestampJumps = 0

    private var context: UnsafeMutablePointer<AVFormatContext>?
    /// Whether the header is out (and so a trailer is due on close).
    private var isWriting = false
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var tracks: [EncodedFrame.Codec: Track] = [:]
    /// When the recording's timeline begins (live input).
    private let startedAt: ContinuousClock.Instant
    private let trackStart: TrackStart
    private var trimmer: Trimmer?

    /// Silence trimming state: audio held before the first speech, everything held after the
    /// latest speech, and the shift that moves the first kept frame to time zero.
    private struct Trimmer {
        let settings: (preRoll: Duration, postRoll: Duration)
        var detector = VoiceActivityDetector()
        var hasStarted = false
        var held: [(frame: EncodedFrame, time: Duration)] = []
        var offset: Duration = .zero
        var lastSpeech: Duration = .zero
    }

    private struct Track {
        var streamIndex: Int32
        var timeBase: AVRational
        var start: Duration?
        var lastTimestamp: UInt32 = 0
        var elapsedTicks: Int64 = 0
        var lastPTS: Int64 = .min
    }

    /// Creates `path` and writes the WebM header with an Opus track (`audio`, whose
    /// `OpusHead` becomes the track's CodecPrivate) and/or a VP8 track (`video`).
    public init(
        path: String,
        audio: OpusHead?,
        video: VideoFormat?,
        trackStart: TrackStart = .arrival,
        startedAt: ContinuousClock.Instant = .now,
        trimming: SilenceTrimming? = nil,
        clusterDuration: Duration = .seconds(1)
    ) throws(MediaFileError) {
        guard audio != nil || video != nil else {
            throw .unusable(format: "WebM", reason: "a recording needs an audio or a video track")
        }
        self.trackStart = trackStart
        self.startedAt = startedAt
        if let trimming {
            trimmer = Trimmer(
                settings: (.milliseconds(trimming.preRollMilliseconds), .milliseconds(trimming.postRollMilliseconds))
            )
        }
        var context: UnsafeMutablePointer<AVFormatContext>?
        try Self.check(avformat_alloc_output_context2(&context, nil, "webm", path), "avformat_alloc_output_context2")
        guard let context else {
            throw .muxer(operation: "avformat_alloc_output_context2", code: 0, message: "no context")
        }
        self.context = context
        if let audio { tracks[.opus] = try Self.addOpusStream(audio, to: context) }
        if let video { tracks[.vp8] = try Self.addVP8Stream(video, to: context) }
        // The file is opened here (no symbolic link, this user's), and libavformat writes to
        // that very file through /proc: a link swapped in by path afterwards changes nothing.
        let descriptor = try MediaOutputFile.openForWriting(path)
        defer { Glibc.close(descriptor) }
        try Self.check(
            avio_open(&context.pointee.pb, "file:/proc/self/fd/\(descriptor)", AVIO_FLAG_WRITE),
            "avio_open \(path)"
        )
        // Flush after every frame; let the interleaver hold at most 1 s waiting for a track.
        context.pointee.flags |= AVFMT_FLAG_FLUSH_PACKETS
        context.pointee.max_interleave_delta = 1_000_000
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        av_dict_set(&options, "cluster_time_limit", "\(max(1, clusterDuration.milliseconds))", 0)
        try Self.check(avformat_write_header(context, &options), "avformat_write_header")
        isWriting = true
        // The muxer may have chosen its own time bases.
        for (codec, track) in tracks {
            if let stream = context.pointee.streams[Int(track.streamIndex)] {
                tracks[codec]?.timeBase = stream.pointee.time_base
            }
        }
        packet = av_packet_alloc()
    }

    /// Adds the Opus track: 48 kHz, its channels and pre-skip, the `OpusHead` as its
    /// CodecPrivate, times in milliseconds.
    private static func addOpusStream(
        _ audio: OpusHead,
        to context: UnsafeMutablePointer<AVFormatContext>
    ) throws(MediaFileError) -> Track {
        guard let stream = avformat_new_stream(context, nil), let parameters = stream.pointee.codecpar else {
            throw .muxer(operation: "avformat_new_stream", code: 0, message: "out of memory")
        }
        parameters.pointee.codec_type = AVMEDIA_TYPE_AUDIO
        parameters.pointee.codec_id = AV_CODEC_ID_OPUS
        parameters.pointee.sample_rate = 48_000
        parameters.pointee.initial_padding = Int32(audio.preSkip)
        av_channel_layout_default(&parameters.pointee.ch_layout, Int32(audio.channels))
        let head = audio.packet
        guard let extradata = av_mallocz(head.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
            throw .muxer(operation: "av_mallocz", code: 0, message: "out of memory")
        }
        head.withUnsafeBytes { extradata.copyMemory(from: $0.baseAddress!, byteCount: head.count) }
        parameters.pointee.extradata = extradata.assumingMemoryBound(to: UInt8.self)
        parameters.pointee.extradata_size = Int32(head.count)
        stream.pointee.time_base = AVRational(num: 1, den: 1000)
        return Track(streamIndex: stream.pointee.index, timeBase: stream.pointee.time_base)
    }

    /// Adds the VP8 track at the picture size, times in milliseconds.
    private static func addVP8Stream(
        _ video: VideoFormat,
        to context: UnsafeMutablePointer<AVFormatContext>
    ) throws(MediaFileError) -> Track {
        guard let stream = avformat_new_stream(context, nil), let parameters = stream.pointee.codecpar else {
            throw .muxer(operation: "avformat_new_stream", code: 0, message: "out of memory")
        }
        parameters.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        parameters.pointee.codec_id = AV_CODEC_ID_VP8
        parameters.pointee.width = Int32(video.width)
        parameters.pointee.height = Int32(video.height)
        stream.pointee.time_base = AVRational(num: 1, den: 1000)
        return Track(streamIndex: stream.pointee.index, timeBase: stream.pointee.time_base)
    }

    deinit {
        try? close()
    }

    /// Adds a frame to its track. `time`, when given, is the frame's presentation time since
    /// the recording began and overrides the timing described on the type. `arrival`: when a
    /// live frame arrived, if before now (frames held until the recorder was made); it places
    /// a track's first frame. With trimming on, pass an Opus frame's decoded audio as `pcm`
    /// for the speech decision (an Opus frame without it counts as speech).
    public func write(
        _ frame: EncodedFrame,
        at time: Duration? = nil,
        arrival: ContinuousClock.Instant? = nil,
        pcm: AudioFrame? = nil
    ) throws(MediaFileError) {
        guard isWriting else { throw .unusable(format: "WebM", reason: "recorder is closed") }
        guard tracks[frame.codec] != nil else {
            throw .unusable(format: "WebM", reason: "no \(frame.codec.rawValue) track in this recording")
        }
        guard !frame.data.isEmpty else {
            throw .unusable(format: "WebM", reason: "empty \(frame.codec.rawValue) frame")
        }
        guard let presentation = place(frame, at: time, arrival: arrival) else { return }
        guard var trimmer else { return try mux(frame, at: presentation) }
        defer { self.trimmer = trimmer }
        let isAudio = frame.codec == .opus
        let speech = isAudio && (pcm.map { trimmer.detector.isSpeech($0) } ?? true)
        guard trimmer.hasStarted else {
            // Before the first speech: keep the last pre-roll of audio, drop video.
            guard isAudio else { return }
            trimmer.held.append((frame, presentation))
            trimmer.held.removeAll { presentation - $0.time > trimmer.settings.preRoll }
            guard speech else { return }
            trimmer.hasStarted = true
            trimmer.offset = trimmer.held.first?.time ?? presentation
            for (held, time) in trimmer.held { try mux(held, at: time - trimmer.offset) }
            trimmer.held = []
            trimmer.lastSpeech = presentation
            return
        }
        if speech || (!isAudio && trimmer.held.isEmpty) {
            for (held, time) in trimmer.held { try mux(held, at: time - trimmer.offset) }
            trimmer.held = []
            if speech { trimmer.lastSpeech = presentation }
            return try mux(frame, at: presentation - trimmer.offset)
        }
        // After speech: hold everything until speech resumes (or for at most 30 s).
        trimmer.held.append((frame, presentation))
        if let first = trimmer.held.first, presentation - first.time > .seconds(30) {
            for (held, time) in trimmer.held { try mux(held, at: time - trimmer.offset) }
            trimmer.held = []
        }
    }

    /// The frame's presentation time on the recording's timeline, or `nil` if it is skipped.
    private func place(_ frame: EncodedFrame, at time: Duration?, arrival: ContinuousClock.Instant?) -> Duration? {
        guard var track = tracks[frame.codec] else { return nil }
        defer { tracks[frame.codec] = track }
        let presentation: Duration
        if let time {
            presentation = time
        } else if let start = track.start {
            // The RTP timestamp moves by the frame's duration; a jump farther than
            // maxTimestampJump (a sender restart, or a peer's made-up value) counts as
            // 20 ms, so the recording's timeline stays continuous and bounded.
            let rate = Int64(frame.codec.clockRate)
            var ticks = RTPTimestamp.distance(from: track.lastTimestamp, to: frame.timestamp)
            if abs(ticks) > Int64(RemoteInputLimits.maxTimestampJump) * rate {
                timestampJumps += 1
                ticks = rate / 50
            }
            track.elapsedTicks += ticks
            // Seconds and the rest apart: `ticks * 10^9` alone overflows after 28.5 hours at 90 kHz.
            presentation =
                start + .seconds(track.elapsedTicks / rate)
                + .nanoseconds(track.elapsedTicks % rate * 1_000_000_000 / rate)
        } else {
            if frame.codec == .vp8, !frame.isKeyframe {
                skippedFrames += 1
                return nil
            }
            track.start = trackStart == .zero ? .zero : max(.zero, (arrival ?? ContinuousClock.now) - startedAt)
            presentation = track.start ?? .zero
        }
        track.lastTimestamp = frame.timestamp
        return presentation
    }

    /// Hands a frame to the muxer at `presentation`.
    private func mux(_ frame: EncodedFrame, at presentation: Duration) throws(MediaFileError) {
        guard let context, let packet, var track = tracks[frame.codec] else { return }
        if frame.codec == .vp8, track.lastPTS == .min, !frame.isKeyframe {
            skippedFrames += 1
            return
        }
        let microseconds = presentation.nanoseconds / 1000
        let pts = av_rescale_q(microseconds, AVRational(num: 1, den: 1_000_000), track.timeBase)
        guard pts > track.lastPTS else {
            skippedFrames += 1
            return
        }
        track.lastPTS = pts
        tracks[frame.codec] = track

        try Self.check(av_new_packet(packet, Int32(frame.data.count)), "av_new_packet")
        frame.data.withUnsafeBytes {
            packet.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: frame.data.count)
        }
        packet.pointee.pts = pts
        packet.pointee.dts = pts
        packet.pointee.stream_index = track.streamIndex
        if frame.isKeyframe { packet.pointee.flags |= AV_PKT_FLAG_KEY }
        if frame.codec == .opus, let samples = OpusPacket.sampleCount(frame.data) {
            packet.pointee.duration = av_rescale_q(Int64(samples), AVRational(num: 1, den: 48_000), track.timeBase)
        }
        let result = av_interleaved_write_frame(context, packet)
        av_packet_unref(packet)
        try Self.check(result, "av_interleaved_write_frame")
    }

    /// Writes the remaining frames, the duration and the cue index, and closes the file.
    public func close() throws(MediaFileError) {
        guard context != nil else { return }
        defer {
            av_packet_free(&packet)
            if let context, context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
            avformat_free_context(context)
            context = nil
            isWriting = false
        }
        guard isWriting else { return }
        if let trimmer {
            // Keep what lies within the post-roll after the last speech; drop the rest.
            for (held, time) in trimmer.held where time - trimmer.lastSpeech <= trimmer.settings.postRoll {
                try mux(held, at: time - trimmer.offset)
            }
            self.trimmer = nil
        }
        try Self.check(av_write_trailer(context), "av_write_trailer")
    }

    private static func check(_ result: Int32, _ operation: String) throws(MediaFileError) {
        try MediaFileError.checkFFmpeg(result, operation)
    }
}
