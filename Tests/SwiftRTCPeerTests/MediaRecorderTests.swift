import Foundation
import SwiftRTCCodecs
import SwiftRTCMedia
import Synchronization
import TestScheduling
import Testing

@testable import SwiftRTCPeer

/// `MediaRecorder`: tracks into WebM, Ogg Opus or WAV in one line, over a real call; each
/// recording is played back to its end by ffmpeg and holds what was sent (the offerer's
/// 440 Hz tone and its test pattern). Errors are errors: an existing file is never replaced,
/// video does not go into audio formats, a recording that got nothing is removed and said.
@Suite(.serialized, .realTime) struct MediaRecorderTests {
    static func folder(_ name: String = #function) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "swiftrtc-recorder-\(getpid())-\(name.prefix { $0 != "(" })"
        ).path
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs a tool to its end off the cooperative pool, returning its standard output and
    /// exit status.
    static func run(_ tool: String, _ arguments: [String]) async throws -> (output: String, status: Int32) {
        try await offThePool { try runBlocking(tool, arguments) }
    }

    private static func runBlocking(_ tool: String, _ arguments: [String]) throws -> (output: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: data, as: UTF8.self), process.terminationStatus)
    }

    /// ffmpeg decodes the whole file (every stream) without an error; ffprobe's codecs and duration.
    static func playsToTheEnd(_ path: String) async throws -> (codecs: [String], seconds: Double) {
        let decode = try await run("/usr/bin/ffmpeg", ["-v", "error", "-xerror", "-i", path, "-f", "null", "-"])
        #expect(decode.status == 0, "ffmpeg could not decode \(path) to its end")
        let codecs = try await run(
            "/usr/bin/ffprobe",
            ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", path]
        ).output
        let duration = try await run(
            "/usr/bin/ffprobe",
            ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path]
        ).output
        return (
            codecs.split(separator: "\n").map(String.init).sorted(),
            Double(duration.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        )
    }

    /// A loopback call whose offerer sends a 440 Hz tone and a 320x240 test pattern, once its
    /// media flows: the answerer's remote tracks, and its audio one.
    static func callWithMedia() async throws -> (LoopbackCall, [MediaStreamTrack], MediaStreamTrack) {
        let call = try await LoopbackCall.start(frequencies: (440, 660), width: 320, height: 240, framesPerSecond: 15)
        try #require(call.connectedAfter != nil)
        try #require(await call.waitForMedia())
        let remote = await call.answerer.transceivers.map(\.receiver.track)
        return (call, remote, try #require(remote.first { $0.kind == .audio }))
    }

    @Test func aCallsRemoteTracksIntoWebMAndWAV() async throws {
        let folder = try Self.folder()
        let (call, remote, audio) = try await Self.callWithMedia()
        defer { Task { await call.close() } }
        let started = ContinuousClock.now
        let webm = try MediaRecorder(tracks: remote, path: folder + "/call.webm")
        let wav = try MediaRecorder(tracks: [audio], path: folder + "/call.wav")
        try await Task.sleep(for: .seconds(2))
        let webmFiles = try await webm.stop(), wavFiles = try await wav.stop()
        // What was recorded is what went by, which a busy pool stretches past the 2 s asked
        // (a CI run's sleeping task woke after 2.5 s and the WAV held 2.4 s and more).
        let recorded = (ContinuousClock.now - started).seconds
        #expect(
            webmFiles.map(\.lastPathComponent) == ["call.webm"] && wavFiles.map(\.lastPathComponent) == ["call.wav"]
        )

        let video = try await Self.playsToTheEnd(folder + "/call.webm")
        print("MediaRecorder: call.webm \(video.codecs), \(video.seconds) s")
        #expect(video.codecs == ["opus", "vp8"])
        #expect(video.seconds > 1.5 && video.seconds < recorded + 0.6, "\(recorded) s went by")
        let sound = try await Self.playsToTheEnd(folder + "/call.wav")
        #expect(
            sound.codecs == ["pcm_s16le"] && sound.seconds > 1.6 && sound.seconds < recorded + 0.4,
            "\(recorded) s went by"
        )
        // The offerer's tone is in it: 440 Hz by zero crossings over the middle second.
        var reader = try WAVReader(path: folder + "/call.wav")
        var samples: [Double] = []
        while let frame = reader.readFrame() {
            for index in stride(from: 0, to: frame.samples.count, by: frame.channels) {
                samples.append(Double(frame.samples[index]))
            }
        }
        let middle = Array(samples[samples.count / 4..<samples.count / 4 + 48_000])
        var crossings = 0
        for i in 1..<middle.count where (middle[i] >= 0) != (middle[i - 1] >= 0) { crossings += 1 }
        let frequency: Double = Double(crossings) / 2
        #expect(abs(frequency - 440) < 5, "\(frequency) Hz recorded")
    }

    /// A local track's raw audio, encoded with Opus into Ogg as it is sent.
    @Test func aLocalTrackIntoOggOpus() async throws {
        let folder = try Self.folder()
        let track = MediaStreamTrack(kind: .audio)
        let recorder = try MediaRecorder(tracks: [track], path: folder + "/mine.ogg")
        try await track.play(FiniteTone(frequency: 300, frames: 50)).finished()
        let files = try await recorder.stop()
        #expect(files.map(\.lastPathComponent) == ["mine.ogg"])
        let played = try await Self.playsToTheEnd(folder + "/mine.ogg")
        #expect(played.codecs == ["opus"] && abs(played.seconds - 1) < 0.1, "\(played)")
    }

    /// With `maxBytes`, a recording stops once it holds that much media: the file plays to
    /// where it stopped, and ``MediaRecorder/sizeLimitsReached`` says so.
    @Test func aRecordingStopsAtItsSizeLimit() async throws {
        let folder = try Self.folder()
        let track = MediaStreamTrack(kind: .audio)
        let recorder = try MediaRecorder(tracks: [track], path: folder + "/capped.ogg", maxBytes: 2_000)
        try await track.play(FiniteTone(frequency: 300, frames: 100)).finished()
        let files = try await recorder.stop()
        #expect(recorder.sizeLimitsReached == 1)
        let bytes = try FileManager.default.attributesOfItem(atPath: folder + "/capped.ogg")[.size] as? Int ?? 0
        let played = try await Self.playsToTheEnd(folder + "/capped.ogg")
        print("MediaRecorder maxBytes 2000: \(files.count) file, \(bytes) bytes, \(played.seconds) s of 2 s")
        #expect(bytes < 2_000 + 1_500, "\(bytes) bytes")
        #expect(played.seconds > 0.1 && played.seconds < 1.5, "\(played)")
    }

    @Test func errorsAreErrors() async throws {
        let folder = try Self.folder()
        let audio = MediaStreamTrack(kind: .audio), video = MediaStreamTrack(kind: .video)
        _ = FileManager.default.createFile(atPath: folder + "/taken.webm", contents: Data("keep me".utf8))
        #expect(throws: MediaRecorderError.cannotCreate(path: folder + "/taken.webm", errno: EEXIST)) {
            try MediaRecorder(tracks: [audio], path: folder + "/taken.webm")
        }
        #expect(try String(contentsOfFile: folder + "/taken.webm", encoding: .utf8) == "keep me")
        #expect(throws: MediaRecorderError.self) { try MediaRecorder(tracks: [video], path: folder + "/video.wav") }
        #expect(throws: MediaRecorderError.unknownFormat(path: folder + "/x.mp3")) {
            try MediaRecorder(tracks: [audio], path: folder + "/x.mp3")
        }
        // Nothing arrives: stop says so and leaves no empty file behind.
        let idle = try MediaRecorder(tracks: [audio, video], path: folder + "/idle.webm")
        await #expect(
            throws: MediaRecorderError.nothingRecorded(
                path: folder + "/idle.webm",
                reason: "no video keyframe was received"
            )
        ) {
            try await idle.stop()
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/idle.webm"))
    }

    /// A long recording in parts: a call's WebM rolled over every second (each part begins
    /// at a keyframe the recorder asked for, and plays on its own), its WAV every 64 KiB.
    /// Together the parts hold the whole recording.
    @Test func aRolloverSplitsTheRecordingIntoPartsThatEachPlay() async throws {
        let folder = try Self.folder()
        let (call, remote, audio) = try await Self.callWithMedia()
        defer { Task { await call.close() } }
        let webm = try MediaRecorder(
            tracks: remote,
            path: folder + "/long.webm",
            rollover: .init(duration: .seconds(1))
        )
        let wav = try MediaRecorder(tracks: [audio], path: folder + "/long.wav", rollover: .init(bytes: 65_536))
        try await Task.sleep(for: .seconds(3.5))
        let webmFiles = try await webm.stop(), wavFiles = try await wav.stop()
        print("MediaRecorder rollover: \(webmFiles.map(\.lastPathComponent)), \(wavFiles.map(\.lastPathComponent))")
        #expect(webmFiles.count >= 3 && webmFiles.count <= 5)
        #expect(
            webmFiles.map(\.lastPathComponent)
                == ["long.webm"] + (2..<webmFiles.count + 1).map { "long-part\($0).webm" }
        )
        var seconds = 0.0
        for file in webmFiles {
            let played = try await Self.playsToTheEnd(file.path)
            #expect(played.codecs == ["opus", "vp8"], "\(file.lastPathComponent)")
            seconds += played.seconds
            #expect(try await beginsWithKeyframe(file.path), "\(file.lastPathComponent) starts with a keyframe")
        }
        #expect(abs(seconds - 3.5) < 0.6, "\(seconds) s in the parts")
        // Each WAV part but the last is full: 64 KiB of PCM and less than one more 20 ms frame
        // (3840 bytes in stereo), after the 44-byte header.
        #expect(wavFiles.count >= 3)
        let sizes = try wavFiles.map {
            try #require(FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int)
        }
        #expect(sizes.dropLast().allSatisfy { (65_536 + 44..<65_536 + 44 + 3840).contains($0) }, "\(sizes)")
        var sound = 0.0
        for file in wavFiles { sound += try await Self.playsToTheEnd(file.path).seconds }
        #expect(abs(sound - 3.5) < 0.4, "\(sound) s of sound in the parts")
    }

    /// A local track's raw video, encoded by the recorder, rolls over too: its own encoder
    /// makes the keyframe each part begins with.
    @Test func aLocalVideoTrackRollsOverAtItsOwnKeyframes() async throws {
        let folder = try Self.folder()
        let video = MediaStreamTrack(kind: .video)
        let recorder = try MediaRecorder(
            tracks: [video],
            path: folder + "/mine.webm",
            rollover: .init(duration: .seconds(1))
        )
        let playback = video.play(TestPatternSource(width: 160, height: 120, framesPerSecond: 15))
        try await Task.sleep(for: .seconds(2.6))
        playback.stop()
        let files = try await recorder.stop()
        #expect(files.count >= 2 && files.count <= 3, "\(files.map(\.lastPathComponent))")
        for file in files {
            #expect(try await Self.playsToTheEnd(file.path).codecs == ["vp8"])
            #expect(try await beginsWithKeyframe(file.path), "\(file.lastPathComponent) starts with a keyframe")
        }
    }

    /// A sender that ignores the first keyframe request (lost, or refused as too soon) and
    /// whose own next keyframe is far off: the recorder asks again, every second, until a
    /// keyframe comes, and the file begins with it. (A Janus room's listener once recorded
    /// nothing for this: one request, lost, and a 3000-frame keyframe interval.)
    @Test func aLostKeyframeRequestIsMadeAgain() async throws {
        let folder = try Self.folder()
        let parts = RecordingParts(first: URL(fileURLWithPath: folder + "/late.webm"), rollover: nil)
        let (frames, input) = AsyncStream.makeStream(of: MediaFrame.self)
        let requests = Mutex<[ContinuousClock.Instant]>([])
        let began = ContinuousClock.now
        let writer = Task {
            try await MediaRecorder.writeWebM(
                frames,
                to: parts,
                hasVideo: true,
                hasAudio: false,
                trimming: nil,
                requestKeyframe: { requests.withLock { $0.append(.now) } }
            )
        }
        // The sender's keyframe went before the recording began: only delta frames, until the
        // recorder's second request (its first, as recording began, is the one lost).
        let encoder = try VP8Encoder(configuration: .init(width: 160, height: 120, targetBitrate: 300_000))
        var pattern = TestPatternSource(width: 160, height: 120, framesPerSecond: 30)
        func nextPicture() throws -> VideoFrame {
            guard let picture = pattern.readFrame() else { throw CancellationError() }
            return picture
        }
        _ = try encoder.encode(nextPicture())
        var answered: ContinuousClock.Instant?
        while ContinuousClock.now - began < .seconds(4) {
            if answered == nil, !requests.withLock({ $0.isEmpty }) {
                encoder.requestKeyframe()
                answered = .now
            }
            if let answered, ContinuousClock.now - answered > .seconds(1) { break }
            if let frame = try encoder.encode(nextPicture()) { input.yield(.encoded(frame)) }
            try await Task.sleep(for: .milliseconds(33))
        }
        input.finish()
        #expect(try await writer.value == nil, "a file was written")
        let asked = requests.withLock { $0 }.map { $0 - began }
        print("MediaRecorder: keyframe asked again at \(asked)")
        #expect(asked.count == 1, "asked once more, not again once the keyframe came: \(asked)")
        #expect(asked.allSatisfy { $0 >= .seconds(0.9) && $0 < .seconds(2) }, "\(asked)")
        let file = try #require(parts.files.first).path
        #expect(try await beginsWithKeyframe(file))
        #expect(try await Self.playsToTheEnd(file).codecs == ["vp8"])
    }

    /// Live audio that came before the first keyframe keeps its place: the file's audio starts
    /// when it came and its video half a second later, when the keyframe came, and both end
    /// together. (Placed at the keyframe, the audio ran behind the video by that half second
    /// to the end: a room test's recordings ended up to 0.9 s apart.)
    @Test func audioBeforeTheFirstKeyframeKeepsItsPlace() async throws {
        let folder = try Self.folder()
        let parts = RecordingParts(first: URL(fileURLWithPath: folder + "/live.webm"), rollover: nil)
        let (frames, input) = AsyncStream.makeStream(of: MediaFrame.self)
        let writer = Task {
            try await MediaRecorder.writeWebM(
                frames,
                to: parts,
                hasVideo: true,
                hasAudio: true,
                trimming: nil,
                requestKeyframe: {}
            )
        }
        let opus = try OpusEncoder(configuration: OpusEncoderConfiguration(channels: 1))
        var tone = ToneGenerator(frequency: 440, amplitude: 0.3)
        let vp8 = try VP8Encoder(configuration: .init(width: 160, height: 120, targetBitrate: 300_000))
        var pattern = TestPatternSource(width: 160, height: 120, framesPerSecond: 30)
        // The sender's first keyframe is not for the recorder: only delta frames for 0.5 s.
        func picture() throws -> VideoFrame {
            guard let picture = pattern.readFrame() else { throw CancellationError() }
            return picture
        }
        func sound() throws -> AudioFrame {
            guard let frame = tone.readFrame() else { throw CancellationError() }
            return frame
        }
        _ = try vp8.encode(picture())
        let began = ContinuousClock.now
        var audioTime = 0, videoTime = 0, keyframeAsked = false
        while ContinuousClock.now - began < .seconds(1.5) {
            let elapsed = (ContinuousClock.now - began).seconds
            while Double(audioTime) * 0.02 <= elapsed {
                input.yield(.encoded(try opus.encode(sound())))
                audioTime += 1
            }
            while Double(videoTime) / 30 <= elapsed {
                if !keyframeAsked, elapsed >= 0.5 {
                    vp8.requestKeyframe()
                    keyframeAsked = true
                }
                if let frame = try vp8.encode(picture()) { input.yield(.encoded(frame)) }
                videoTime += 1
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        input.finish()
        #expect(try await writer.value == nil, "a file was written")
        let file = try #require(parts.files.first).path
        var spans: [String: (start: Double, end: Double)] = [:]
        for kind in ["a", "v"] {
            let times = try await Self.run(
                "/usr/bin/ffprobe",
                ["-v", "error", "-select_streams", kind, "-show_entries", "packet=pts_time", "-of", "csv=p=0", file]
            ).output.split(separator: "\n").compactMap { Double($0) }
            spans[kind] = (times.min() ?? .nan, times.max() ?? .nan)
        }
        print("MediaRecorder: audio \(spans["a"] ?? (0, 0)), video \(spans["v"] ?? (0, 0)) s")
        let audio = try #require(spans["a"]), video = try #require(spans["v"])
        #expect(abs(audio.start) < 0.02, "audio starts the file: \(audio)")
        #expect(abs(video.start - 0.5) < 0.1, "video starts with its keyframe: \(video)")
        #expect(abs(audio.end - video.end) < 0.06, "both end together: audio \(audio), video \(video)")
    }

    /// Two audio tracks into Ogg: one file each, the second named `-2`.
    @Test func moreTracksThanAFileTakesGoToMoreFiles() async throws {
        let folder = try Self.folder()
        let first = MediaStreamTrack(kind: .audio), second = MediaStreamTrack(kind: .audio)
        let recorder = try MediaRecorder(tracks: [first, second], path: folder + "/both.ogg")
        #expect(recorder.files.map(\.lastPathComponent) == ["both.ogg", "both-2.ogg"])
        async let a: Void = first.play(FiniteTone(frequency: 300, frames: 25)).finished()
        async let b: Void = second.play(FiniteTone(frequency: 500, frames: 25)).finished()
        _ = try await (a, b)
        let files = try await recorder.stop()
        #expect(files.count == 2)
        for file in files { #expect(try await Self.playsToTheEnd(file.path).codecs == ["opus"]) }
    }
}

/// `frames` 20 ms frames of a tone, then the end.
struct FiniteTone: MediaSource, Sendable {
    var tone: ToneGenerator
    var frames: Int

    init(frequency: Double, frames: Int) {
        tone = ToneGenerator(frequency: frequency, amplitude: 0.3)
        self.frames = frames
    }

    mutating func readFrame() -> AudioFrame? {
        guard frames > 0 else { return nil }
        frames -= 1
        return tone.nextFrame()
    }
}
