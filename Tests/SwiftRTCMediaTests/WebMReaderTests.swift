import Foundation
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCRTP
import Testing

@testable import SwiftRTCMedia

/// ``WebMReader`` on WebM files from ffmpeg (libvpx, libopus) and from our own
/// ``WebMRecorder``: every packet comes out, with its timing on the RTP clock, keyframes
/// flagged, the picture size known; a file with one kind has no track of the other; a file
/// that is no WebM is refused.
@Suite struct WebMReaderTests {
    /// 2 s of ffmpeg's test pattern (15 fps, 160x120, a keyframe every 10 frames) and a tone.
    static func ffmpegWebM(in directory: String) async throws -> String {
        let path = directory + "/ffmpeg.webm"
        _ = try await run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=15:duration=2",
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2",
                "-c:v", "libvpx", "-g", "10", "-b:v", "200k", "-c:a", "libopus", "-frame_duration", "20", path,
            ]
        )
        return path
    }

    static func readAll(_ reader: WebMReader) throws -> [EncodedFrame] {
        var reader = reader
        var frames: [EncodedFrame] = []
        while let frame = try reader.readFrame() { frames.append(frame) }
        return frames
    }

    @Test func readsFFmpegsVideoAndAudio() async throws {
        let path = try await Self.ffmpegWebM(in: try temporaryDirectory())
        #expect(try WebMReader.tracks(in: path) == [.audio, .video])
        let video = try WebMReader(path: path, track: .video)
        #expect(video.width == 160 && video.height == 120)
        let frames = try Self.readAll(video)
        #expect(frames.count == 30 && frames.allSatisfy { $0.codec == .vp8 })
        #expect(frames.enumerated().filter { $0.element.isKeyframe }.map(\.offset) == [0, 10, 20])
        // 15 fps on the 90 kHz clock, to WebM's millisecond precision.
        #expect(
            frames.enumerated().allSatisfy { abs(Int($1.timestamp) - $0 * 6000) <= 90 },
            "\(frames.map(\.timestamp))"
        )
        let probed = try await probePackets(path).filter { $0.size > 0 }
        let sizes: [Int] = frames.map(\.data.count)
        let probedSizes: [Int] = probed.map(\.size).filter { sizes.contains($0) }
        #expect(sizes.sorted() == probedSizes.sorted())
        let audio = try Self.readAll(WebMReader(path: path, track: .audio))
        #expect(audio.count >= 100 && audio.allSatisfy { $0.codec == .opus })
        #expect(
            zip(audio, audio.dropFirst()).allSatisfy { abs(Int($1.timestamp) - Int($0.timestamp) - 960) <= 48 },
            "20 ms Opus frames on the 48 kHz clock: \(audio.prefix(8).map(\.timestamp))"
        )
    }

    @Test func readsWhatOurRecorderWrote() async throws {
        let directory = try temporaryDirectory()
        var ivf = try IVFReader(path: try await makeIVF(in: directory, count: 20, width: 320, height: 240))
        var sent: [EncodedFrame] = []
        while let frame = try ivf.readFrame() { sent.append(frame) }
        let path = directory + "/ours.webm"
        let recorder = try WebMRecorder(
            path: path,
            audio: nil,
            video: .init(width: 320, height: 240),
            trackStart: .zero
        )
        for frame in sent { try recorder.write(frame) }
        try recorder.close()
        #expect(try WebMReader.tracks(in: path) == [.video])
        let read = try Self.readAll(WebMReader(path: path, track: .video))
        #expect(read.map(\.data) == sent.map(\.data))
        #expect(read.map(\.isKeyframe) == sent.map(\.isKeyframe))
        #expect(throws: MediaFileError.self) { try WebMReader(path: path, track: .audio) }
    }

    @Test func aFileThatIsNoWebMIsRefused() throws {
        let path = try temporaryDirectory() + "/not.webm"
        try writeBytes(Array("RIFF....WAVEfmt nothing to see".utf8), to: path)
        #expect(throws: MediaFileError.self) { try WebMReader(path: path, track: .audio) }
        #expect(throws: MediaFileError.io(path: path + ".missing", operation: "open", errno: ENOENT)) {
            try WebMReader(path: path + ".missing", track: .audio)
        }
    }
}
