import Foundation
import SwiftRTCCodecs
import SwiftRTCMedia
import SwiftRTCRTP
import Synchronization
import Testing

@testable import SwiftRTCPeer

/// `track.play(file:loop:)`: a file into a local track in one line, paced in real time, with
/// an end to await; looping carries the timestamps on; a file the track's kind cannot play
/// is an error at once.
@Suite(.realTime) struct FilePlaybackTests {
    static func folder(_ name: String = #function) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "swiftrtc-playback-\(getpid())-\(name.prefix { $0 != "(" })"
        ).path
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A WAV of `milliseconds` of 1 kHz at 16 kHz mono.
    static func wav(_ path: String, milliseconds: Int) throws -> String {
        let file = path + "/tone.wav"
        let writer = try WAVWriter(path: file, channels: 1)
        let resampler = try AudioResampler(
            from: PCMFormat(sampleRate: 16_000, channels: 1),
            to: PCMFormat(sampleRate: 48_000, channels: 1)
        )
        let tone = (0..<16 * milliseconds).map { Int16(8000 * sin(2 * Double.pi * 1000 * Double($0) / 16_000)) }
        try writer.write(AudioFrame(samples: resampler.convert(tone) + resampler.flush(), channels: 1, timestamp: 0))
        try writer.close()
        return file
    }

    /// What a local track hands on while `body` runs.
    static func collect(_ track: MediaStreamTrack, _ body: () async throws -> Void) async throws -> [MediaFrame] {
        let frames = Mutex<[MediaFrame]>([])
        let stream = track.frames()
        let reader = Task { for await frame in stream { frames.withLock { $0.append(frame) } } }
        try await body()
        try await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        return frames.withLock { $0 }
    }

    @Test func aWAVPlaysToItsEndInRealTime() async throws {
        let file = try Self.wav(try Self.folder(), milliseconds: 500)
        let track = MediaStreamTrack(kind: .audio)
        let start = ContinuousClock.now
        let frames = try await Self.collect(track) {
            try await track.play(file: file).finished()
        }
        let elapsed = ContinuousClock.now - start
        let audio = frames.compactMap { if case .audio(let frame) = $0 { frame } else { nil } }
        #expect(
            audio.count == 25 && audio.allSatisfy { $0.samplesPerChannel == 960 },
            "0.5 s as 20 ms frames at 48 kHz"
        )
        #expect(elapsed > .milliseconds(440) && elapsed < .milliseconds(1500), "paced in real time: \(elapsed)")
    }

    @Test func aLoopCarriesTheTimestampsOnUntilStopped() async throws {
        let file = try Self.wav(try Self.folder(), milliseconds: 200)
        let track = MediaStreamTrack(kind: .audio)
        var playback: Playback?
        let frames = try await Self.collect(track) {
            playback = try track.play(file: file, loop: true)
            try await Task.sleep(for: .milliseconds(700))
            playback?.stop()
        }
        await #expect(throws: CancellationError.self) { try await playback?.finished() }
        let timestamps = frames.compactMap { if case .audio(let frame) = $0 { frame.timestamp } else { nil } }
        #expect(timestamps.count >= 30, "three passes of 10 frames and more: \(timestamps.count)")
        #expect(
            zip(timestamps, timestamps.dropFirst()).allSatisfy { $1 == $0 + 960 },
            "one stream across the passes: \(timestamps)"
        )
    }

    @Test func aWebMPlaysItsTrackOfTheTracksKind() async throws {
        let folder = try Self.folder()
        let file = folder + "/clip.webm"
        let ffmpeg = try await MediaRecorderTests.run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=15:duration=1",
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1",
                "-c:v", "libvpx", "-b:v", "200k", "-c:a", "libopus", file,
            ]
        )
        try #require(ffmpeg.status == 0)
        let video = MediaStreamTrack(kind: .video), audio = MediaStreamTrack(kind: .audio)
        async let videoFrames = Self.collect(video) { try await video.play(file: file).finished() }
        async let audioFrames = Self.collect(audio) { try await audio.play(file: file).finished() }
        let (v, a) = try await (videoFrames, audioFrames)
        let vp8 = v.compactMap { if case .encoded(let frame) = $0, frame.codec == .vp8 { frame } else { nil } }
        let opus = a.compactMap { if case .encoded(let frame) = $0, frame.codec == .opus { frame } else { nil } }
        #expect(vp8.count == 15 && vp8.first?.isKeyframe == true)
        #expect(opus.count >= 50)
    }

    @Test func aFileOfTheOtherKindIsAnError() throws {
        let file = try Self.wav(try Self.folder(), milliseconds: 100)
        #expect(throws: MediaFileError.self) { try MediaStreamTrack(kind: .video).play(file: file) }
        #expect(throws: MediaFileError.self) { try MediaStreamTrack(kind: .audio).play(file: file + ".missing") }
    }
}
