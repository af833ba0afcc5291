import Foundation
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCRTP
import TestScheduling
import Testing

@testable import SwiftRTCMedia

private func readFrames<Source: MediaSource>(_ source: Source) throws -> [Source.Frame] {
    var source = source, frames: [Source.Frame] = []
    while let frame = try source.readFrame() { frames.append(frame) }
    return frames
}

/// Audio and video frames merged in presentation order, as a receiver would see them.
private func interleaved(_ audio: [EncodedFrame], _ video: [EncodedFrame]) -> [EncodedFrame] {
    (audio + video).sorted {
        Double($0.timestamp) / Double($0.codec.clockRate) < Double($1.timestamp) / Double($1.codec.clockRate)
    }
}

/// ffprobe's view of a file: the format section and one dictionary per stream.
private func probe(_ path: String) async throws -> (format: [String: Any], streams: [[String: Any]]) {
    let json = try await run(
        "/usr/bin/ffprobe",
        ["-v", "error", "-count_packets", "-show_format", "-show_streams", "-of", "json", path]
    )
    let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] ?? [:]
    return (object["format"] as? [String: Any] ?? [:], object["streams"] as? [[String: Any]] ?? [])
}

private func stream(_ codec: String, in streams: [[String: Any]]) -> [String: Any] {
    streams.first { $0["codec_name"] as? String == codec } ?? [:]
}

private func number(_ value: Any?) -> Double {
    (value as? String).flatMap(Double.init) ?? (value as? Double) ?? (value as? Int).map(Double.init) ?? .nan
}

@Test func webmRecordingHasBothTracksInSyncForFfprobe() async throws {
    let directory = try temporaryDirectory()
    let ivf = try await makeIVF(in: directory, count: 60)
    let opus = try await makeOggOpus(in: directory, seconds: 2, channels: 2)
    let video = try readFrames(try IVFReader(path: ivf))
    let audioReader = try OggOpusReader(path: opus)
    let audio = try readFrames(audioReader)
    let path = directory + "/call.webm"
    let recorder = try WebMRecorder(
        path: path,
        audio: audioReader.head,
        video: .init(width: 320, height: 240),
        trackStart: .zero
    )
    for frame in interleaved(audio, video) { try recorder.write(frame) }
    try recorder.close()
    #expect(recorder.skippedFrames == 0)

    let (format, streams) = try await probe(path)
    #expect(format["format_name"] as? String == "matroska,webm")
    #expect(abs(number(format["duration"]) - 2.0) < 0.1)
    #expect(streams.count == 2)
    let opusStream = stream("opus", in: streams), vp8Stream = stream("vp8", in: streams)
    #expect(opusStream["channels"] as? Int == 2 && opusStream["sample_rate"] as? String == "48000")
    #expect(number(opusStream["nb_read_packets"]) == Double(audio.count))
    #expect(vp8Stream["width"] as? Int == 320 && vp8Stream["height"] as? Int == 240)
    #expect(number(vp8Stream["nb_read_packets"]) == 60)
    // Both tracks start at 0 and the last video frame is at 59/30 s. The Opus blocks carry
    // the pre-skip as Matroska CodecDelay (312 samples = 6.5 ms), which ffprobe shows as a
    // start 7 ms early and the decoder drops, so audio plays from 0 too.
    #expect(abs(number(opusStream["start_time"]) + 0.007) < 0.0005 && abs(number(vp8Stream["start_time"])) < 0.0005)
    let videoTimes = try await run(
        "/usr/bin/ffprobe",
        ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path]
    )
    .split(separator: "\n").compactMap { Double($0) }
    #expect(videoTimes.count == 60 && abs((videoTimes.last ?? 0) - 59.0 / 30) < 0.002)

    // The recording decodes: every VP8 frame still shows its counter, the audio without errors.
    let decoded = directory + "/decoded.y4m"
    try await run("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-map", "0:v", "-pix_fmt", "yuv420p", decoded])
    var pictures = try Y4MReader(path: decoded)
    var counters: [Int?] = []
    while let picture = try pictures.readFrame() { counters.append(TestPatternSource.readFrameCounter(from: picture)) }
    #expect(counters == (0..<60).map { $0 })
    #expect(try await run("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-map", "0:a", "-f", "null", "-"]).isEmpty)

    // Pass-through: ffmpeg copies the same bytes back out of the WebM, frame for frame.
    let videoBack = directory + "/back.ivf", audioBack = directory + "/back.opus"
    try await run(
        "/usr/bin/ffmpeg",
        ["-v", "error", "-i", path, "-map", "0:v", "-c", "copy", videoBack, "-map", "0:a", "-c", "copy", audioBack]
    )
    #expect(try readFrames(try IVFReader(path: videoBack)).map(\.data) == video.map(\.data))
    #expect(try readFrames(try OggOpusReader(path: audioBack)).map(\.data) == audio.map(\.data))

    // Chromium's WebM parser takes it whole: both tracks buffered over the 2 s.
    let chromium = try await chromiumParseWebM(path)
    let range = chromium.split(separator: " ").compactMap { $0.split(separator: "=").last.flatMap { Double($0) } }
    #expect(chromium.hasPrefix("ok ranges=1 ") && range.count == 3, "\(chromium)")
    #expect(abs(range.dropFirst().first ?? -1) < 0.01 && abs((range.last ?? 0) - 2.0) < 0.03, "\(chromium)")
}

@Test func webmRecorderPlacesTracksByGivenTimes() async throws {
    let directory = try temporaryDirectory()
    let video = try readFrames(try IVFReader(path: try await makeIVF(in: directory, count: 30)))
    let audioReader = try OggOpusReader(path: try await makeOggOpus(in: directory, seconds: 1))
    let audio = try readFrames(audioReader)
    let path = directory + "/late-video.webm"
    let recorder = try WebMRecorder(path: path, audio: audioReader.head, video: .init(width: 320, height: 240))
    // Video joins half a second after audio; a non-keyframe first and a stale frame are skipped.
    try recorder.write(video[1], at: .milliseconds(400))
    for frame in interleaved(
        audio,
        video.map {
            var f = $0
            f.timestamp &+= 45_000
            return f
        }
    ) {
        try recorder.write(
            frame,
            at: .nanoseconds(Int64(frame.timestamp) * 1_000_000_000 / Int64(frame.codec.clockRate))
        )
    }
    try recorder.write(video[0], at: .milliseconds(10))
    try recorder.close()
    #expect(recorder.skippedFrames == 2)
    let streams = try await probe(path).streams
    #expect(abs(number(stream("opus", in: streams)["start_time"]) + 0.007) < 0.0005)  // pre-skip, see above
    #expect(abs(number(stream("vp8", in: streams)["start_time"]) - 0.5) < 0.001)
    #expect(throws: MediaFileError.self) { try recorder.write(audio[0]) }
}

@Test func webmRecorderRejectsMissingTracks() throws {
    let path = try temporaryDirectory() + "/audio-only.webm"
    #expect(throws: MediaFileError.self) { try WebMRecorder(path: path, audio: nil, video: nil) }
    let recorder = try WebMRecorder(path: path, audio: OpusHead(channels: 1), video: nil)
    #expect(throws: MediaFileError.unusable(format: "WebM", reason: "no vp8 track in this recording")) {
        try recorder.write(EncodedFrame(codec: .vp8, data: [0x10], timestamp: 0, isKeyframe: true))
    }
    try recorder.close()
    #expect(throws: MediaFileError.self) {
        try WebMRecorder(path: "/nonexistent-dir/x.webm", audio: OpusHead(channels: 1), video: nil)
    }
}

/// The `swiftrtc-record` executable beside the test bundle.
private var recordExecutable: URL {
    var url = Bundle.main.bundleURL
    while url.pathComponents.count > 1,
        !FileManager.default.fileExists(atPath: url.appendingPathComponent("swiftrtc-record").path)
    {
        url.deleteLastPathComponent()
    }
    return url.appendingPathComponent("swiftrtc-record")
}

@Test(.realTime) func webmRecordingKilledMidwayStaysPlayable() async throws {
    let directory = try temporaryDirectory()
    let ivf = try await makeIVF(in: directory, count: 180)  // 6 s
    let opus = try await makeOggOpus(in: directory, seconds: 6)
    let path = directory + "/killed.webm"
    let process = Process()
    process.executableURL = recordExecutable
    process.arguments = [ivf, opus, path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    // Wait for the header, let about 3 s of media go by, then SIGKILL. The wait and the kill
    // are on a thread of their own: a sleeping task wakes only when the cooperative pool has a
    // free thread, and on a loaded machine that came after the whole 6 s had been recorded.
    let handle = output.fileHandleForReading
    let pid = process.processIdentifier
    let line = try await offThePool {
        let line = handle.availableData
        Thread.sleep(forTimeInterval: 3.2)
        kill(pid, SIGKILL)
        return line
    }
    #expect(String(decoding: line, as: UTF8.self).hasPrefix("recording"))
    try await offThePool { process.waitUntilExit() }
    #expect(process.terminationReason == .uncaughtSignal)

    // Everything up to the last closed cluster (1 s) is there and decodes.
    let streams = try await probe(path).streams
    let videoPackets = Int(
        number(stream("vp8", in: streams)["nb_read_packets"]).isNaN
            ? 0 : number(stream("vp8", in: streams)["nb_read_packets"])
    )
    let audioPackets = Int(
        number(stream("opus", in: streams)["nb_read_packets"]).isNaN
            ? 0 : number(stream("opus", in: streams)["nb_read_packets"])
    )
    // At least the first closed second; fewer than the whole 6 s (180 frames, 300 packets),
    // however late the kill came on a loaded machine.
    #expect((40..<180).contains(videoPackets), "video packets: \(videoPackets)")
    #expect((60..<300).contains(audioPackets), "audio packets: \(audioPackets)")
    #expect(try await run("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"]).isEmpty)
    let chromium = try await chromiumParseWebM(path)
    #expect(chromium.hasPrefix("ok ranges=1 "), "\(chromium)")
}

@Test func webmRecorderTrimsLeadingAndTrailingSilence() async throws {
    let directory = try temporaryDirectory()
    let video = try readFrames(try IVFReader(path: try await makeIVF(in: directory, count: 90)))
    let audioReader = try OggOpusReader(path: try await makeOggOpus(in: directory, seconds: 3))
    let audio = try readFrames(audioReader)
    // The decoded audio: 1 s silence, 1 s speech, 1 s silence.
    let pcm = frames(
        of: [Int16](repeating: 0, count: 48_000) + speechLike(milliseconds: 1000)
            + [Int16](repeating: 0, count: 48_000 + 960 * 4)
    )
    let path = directory + "/trimmed.webm"
    let recorder = try WebMRecorder(
        path: path,
        audio: audioReader.head,
        video: .init(width: 320, height: 240),
        trackStart: .zero,
        trimming: SilenceTrimming(preRollMilliseconds: 100, postRollMilliseconds: 100)
    )
    for frame in interleaved(audio, video) {
        try recorder.write(frame, pcm: frame.codec == .opus ? pcm[Int(frame.timestamp) / 960] : nil)
    }
    try recorder.close()
    let (format, streams) = try await probe(path)
    // 100 ms pre-roll + 1 s speech + 200 ms hangover + 100 ms post-roll.
    #expect(abs(number(format["duration"]) - 1.4) < 0.08, "\(format)")
    #expect((65...75).contains(Int(number(stream("opus", in: streams)["nb_read_packets"]))))
    // Video resumes at the first keyframe after the cut (frame 30, 1.0 s, now at 0.1 s).
    #expect(abs(number(stream("vp8", in: streams)["start_time"]) - 0.1) < 0.002)
    #expect(try await run("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"]).isEmpty)
}

@Test(.realTime) func liveRecordingOfPacedFilesEndsInSync() async throws {
    // swiftrtc-record paces both files in real time and records them as they arrive.
    let directory = try temporaryDirectory()
    let ivf = try await makeIVF(in: directory, count: 30)
    let opus = try await makeOggOpus(in: directory, seconds: 1)
    let path = directory + "/live.webm"
    #expect(try await run(recordExecutable.path, [ivf, opus, path]) == "recording\n")
    let (format, streams) = try await probe(path)
    // Arrival-time placement: each track starts when its first frame arrived (after the
    // readers started: later on a loaded machine), both within a few milliseconds of each
    // other, and from there the frames' own timestamps place them: 1 s of media.
    let audioStart = number(stream("opus", in: streams)["start_time"]) + 0.0065
    let videoStart = number(stream("vp8", in: streams)["start_time"])
    #expect(abs(videoStart - audioStart) < 0.05)
    #expect(abs(number(format["duration"]) - min(audioStart, videoStart) - 1.0) < 0.1, "\(format)")
    #expect(number(stream("vp8", in: streams)["nb_read_packets"]) == 30)
}

/// RTP timestamps a hostile peer sends a recorder: each frame 6.6 hours (2^31 - 1 ticks at
/// 90 kHz) after the one before. `elapsedTicks * 10^9` trapped at the fifth frame; jumps past
/// ``RemoteInputLimits/maxTimestampJump`` now count as 20 ms and the file stays playable.
@Test func webmRecorderSurvivesTimestampJumps() async throws {
    let directory = try temporaryDirectory()
    let ivf = try await makeIVF(in: directory, count: 30)
    let video = try readFrames(try IVFReader(path: ivf))
    let path = directory + "/jumps.webm"
    let recorder = try WebMRecorder(path: path, audio: nil, video: .init(width: 320, height: 240), trackStart: .zero)
    var timestamp: UInt32 = 1000
    for var frame in video {
        frame.timestamp = timestamp
        try recorder.write(frame)
        timestamp &+= 0x7FFF_FFFF
    }
    try recorder.close()
    #expect(recorder.timestampJumps == video.count - 1 && recorder.skippedFrames == 0)
    let (format, streams) = try await probe(path)
    #expect(number(stream("vp8", in: streams)["nb_read_packets"]) == Double(video.count))
    #expect(abs(number(format["duration"]) - Double(video.count) * 0.02) < 0.05)
}

/// An honest 90 kHz stream past 28.5 hours (where `ticks * 10^9` overflowed Int64): frames
/// every 50 s of RTP time for 30 hours land at their times.
@Test func webmRecorderPlacesFramesPastThirtyHours() async throws {
    let directory = try temporaryDirectory()
    let ivf = try await makeIVF(in: directory, count: 30, width: 160, height: 120)
    let keyframe = try #require(try readFrames(try IVFReader(path: ivf)).first)
    let path = directory + "/long.webm"
    let recorder = try WebMRecorder(path: path, audio: nil, video: .init(width: 160, height: 120), trackStart: .zero)
    let step: UInt32 = 50 * 90_000
    let frames = 30 * 3600 / 50 + 1
    var timestamp = UInt32.max - 10 * step  // wraps on the way, too
    for _ in 0..<frames {
        var frame = keyframe
        frame.timestamp = timestamp
        try recorder.write(frame)
        timestamp &+= step
    }
    try recorder.close()
    #expect(recorder.timestampJumps == 0 && recorder.skippedFrames == 0)
    let times = try await run(
        "/usr/bin/ffprobe",
        ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path]
    )
    .split(separator: "\n").compactMap { Double($0) }
    #expect(times.count == frames)
    #expect(abs((times.last ?? 0) - 30 * 3600) < 0.01)
}

/// A 30-hour call's recording: audio (48 kHz RTP clock, which wraps at 24.9 hours) and video
/// (90 kHz, wrapping at 13.3 hours) with a frame of each every 50 s, each clock starting at a
/// different point of its 32 bits. ffmpeg decodes it to the end, and every audio frame lies
/// where the video frame written beside it does, to the millisecond.
@Test func webmRecorderKeepsAudioAndVideoInSyncPastThirtyHours() async throws {
    let directory = try temporaryDirectory()
    let ivf = try await makeIVF(in: directory, count: 1, width: 160, height: 120)
    let keyframe = try #require(try readFrames(try IVFReader(path: ivf)).first)
    let opusReader = try OggOpusReader(path: try await makeOggOpus(in: directory, seconds: 0.1, channels: 2))
    let opus = try #require(try readFrames(opusReader).last)
    let path = directory + "/day.webm"
    let recorder = try WebMRecorder(
        path: path,
        audio: opusReader.head,
        video: .init(width: 160, height: 120),
        trackStart: .zero
    )
    let frames = 30 * 3600 / 50 + 1
    var audioTimestamp = UInt32.max - 20 * 50 * 48_000  // wraps after 1000 s, and again at 25 h
    var videoTimestamp: UInt32 = 123_456_789  // wraps after 12.9 h
    for _ in 0..<frames {
        var audio = opus, video = keyframe
        audio.timestamp = audioTimestamp
        video.timestamp = videoTimestamp
        try recorder.write(audio)
        try recorder.write(video)
        audioTimestamp &+= 50 * 48_000
        videoTimestamp &+= 50 * 90_000
    }
    try recorder.close()
    #expect(recorder.timestampJumps == 0 && recorder.skippedFrames == 0)

    func times(_ stream: String) async throws -> [Double] {
        try await run(
            "/usr/bin/ffprobe",
            ["-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time", "-of", "csv=p=0", path]
        )
        .split(separator: "\n").compactMap { Double($0) }
    }
    let audioTimes = try await times("a"), videoTimes = try await times("v")
    #expect(audioTimes.count == frames && videoTimes.count == frames)
    // Audio shows 7 ms early (the Opus pre-skip as CodecDelay, which the decoder drops).
    let offsets = zip(audioTimes, videoTimes).map { $0 + 0.0065 - $1 }
    #expect(offsets.allSatisfy { abs($0) < 0.001 }, "audio - video from \(offsets.min()!) to \(offsets.max()!) s")
    #expect(abs((videoTimes.last ?? 0) - 30 * 3600) < 0.001)

    // Played to the end: every frame of both tracks decodes, the last 30 hours in.
    let played = try await run(
        "/usr/bin/ffmpeg",
        ["-v", "error", "-i", path, "-map", "0", "-f", "framemd5", "-"]
    )
    let decoded = played.split(separator: "\n").filter { !$0.hasPrefix("#") }
    #expect(
        decoded.filter { $0.hasPrefix("0,") }.count == frames && decoded.filter { $0.hasPrefix("1,") }.count == frames
    )
}

/// Live audio that came before the first keyframe (held until the recorder could be made)
/// keeps its place: it starts the timeline, and the video starts when its keyframe came,
/// 0.4 s later, so both end together. Placed at the keyframe, the audio ran 0.4 s behind the
/// video to the end.
@Test func heldAudioKeepsItsPlaceBeforeTheFirstKeyframe() async throws {
    let directory = try temporaryDirectory()
    let ivf = try await makeIVF(in: directory, count: 48)
    let opus = try await makeOggOpus(in: directory, seconds: 2, channels: 2)
    let video = try readFrames(try IVFReader(path: ivf))
    let audioReader = try OggOpusReader(path: opus)
    let audio = try readFrames(audioReader)
    let path = directory + "/held.webm"
    let began = ContinuousClock.now - .milliseconds(400)
    let recorder = try WebMRecorder(
        path: path,
        audio: audioReader.head,
        video: .init(width: 320, height: 240),
        startedAt: began
    )
    // 0.4 s of audio (20 frames) came before the keyframe; the first at `began`.
    for (index, frame) in audio.prefix(20).enumerated() {
        try recorder.write(frame, arrival: began + .milliseconds(20 * index))
    }
    // Then the video from its keyframe (arriving now) and the rest of the audio, in time order:
    // 1.6 s of each.
    for frame in interleaved(
        Array(audio.dropFirst(20)),
        video.map {
            var v = $0
            v.timestamp &+= 36_000
            return v
        }
    ) {
        try recorder.write(frame)
    }
    try recorder.close()
    let (_, streams) = try await probe(path)
    let audioStart = number(stream("opus", in: streams)["start_time"])
    let videoStart = number(stream("vp8", in: streams)["start_time"])
    #expect(abs(audioStart + 0.007) < 0.002, "audio starts the timeline: \(audioStart)")
    #expect(abs(videoStart - 0.4) < 0.05, "video starts when its keyframe came: \(videoStart)")
    func end(_ kind: String) async throws -> Double {
        try await run(
            "/usr/bin/ffprobe",
            ["-v", "error", "-select_streams", kind, "-show_entries", "packet=pts_time", "-of", "csv=p=0", path]
        )
        .split(separator: "\n").compactMap { Double($0) }.max() ?? .nan
    }
    // Audio frames are 20 ms, video 33 ms: the last of each within a frame of the other.
    let audioEnd = try await end("a"), videoEnd = try await end("v")
    #expect(abs(audioEnd - videoEnd) < 0.05, "audio ends \(audioEnd), video \(videoEnd)")
}
