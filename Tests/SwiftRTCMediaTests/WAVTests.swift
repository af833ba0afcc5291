import Foundation
import SwiftRTCCodecs
import Testing

@testable import SwiftRTCMedia

@Test(arguments: [1, 2])
func wavRoundTrips(channels: Int) async throws {
    let path = try temporaryDirectory() + "/tone.wav"
    var tone = ToneGenerator(frequency: 440, amplitude: 0.5, channels: channels)
    let written = (0..<25).map { _ in tone.nextFrame() }
    let writer = try WAVWriter(path: path, channels: channels)
    for frame in written { try writer.write(frame) }
    try writer.close()
    #expect(try readBytes(path).count == 44 + 25 * 960 * channels * 2)
    var reader = try WAVReader(path: path)
    #expect(reader.format == PCMFormat(sampleRate: 48_000, channels: channels))
    var read: [AudioFrame] = []
    while let frame = reader.readFrame() { read.append(frame) }
    #expect(read == written)
    // ffmpeg agrees on the format and length.
    let probe = try await run(
        "/usr/bin/ffprobe",
        ["-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels,duration_ts", "-of", "csv=p=0", path]
    )
    #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "pcm_s16le,48000,\(channels),24000")
}

@Test(arguments: [8000, 16000, 44100, 48000])
func wavAtOtherRatesPlaysAt48k(rate: Int) async throws {
    let directory = try temporaryDirectory()
    let path = directory + "/in.wav"
    try await run(
        "/usr/bin/ffmpeg",
        [
            "-v", "error", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=\(rate):duration=1", "-ac", "2",
            "-c:a", "pcm_s16le", path,
        ]
    )
    var reader = try WAVReader(path: path)
    #expect(reader.format == PCMFormat(sampleRate: rate, channels: 2))
    #expect(abs(reader.sampleCount - 48_000) <= 48_000 / rate + 1)
    var left: [Int16] = []
    while let frame = reader.readFrame() {
        left += frame.samples.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
    }
    // 1 kHz for 1 s: 2000 zero crossings at any input rate.
    let crossings = zip(left, left.dropFirst()).prefix(reader.sampleCount - 1).filter { ($0 < 0) != ($1 < 0) }.count
    #expect(abs(crossings - 2000) <= 4)
}

@Test func wavWriterLeavesAPlayableFileWhenNeverClosed() throws {
    let path = try temporaryDirectory() + "/crash.wav"
    let writer = try WAVWriter(path: path, channels: 1, headerUpdateInterval: .milliseconds(100))
    var tone = ToneGenerator()
    for _ in 0..<33 { try writer.write(tone.nextFrame()) }  // 660 ms
    // Read while the writer is still open, as after a crash: the header covers 600 ms.
    var reader = try WAVReader(path: path)
    #expect(reader.sampleCount == 600 * 48)
    #expect(reader.readFrame() != nil)
    withExtendedLifetime(writer) {}
}

@Test func wavWriterTrimsLeadingAndTrailingSilence() throws {
    let path = try temporaryDirectory() + "/trimmed.wav"
    let writer = try WAVWriter(
        path: path,
        channels: 1,
        trimming: SilenceTrimming(preRollMilliseconds: 100, postRollMilliseconds: 100)
    )
    let signal =
        [Int16](repeating: 0, count: 48_000) + speechLike(milliseconds: 1000) + [Int16](repeating: 0, count: 96_000)
    for frame in frames(of: signal) { try writer.write(frame) }
    try writer.close()
    let reader = try WAVReader(path: path)
    // 1 s of speech plus at most 100 ms pre-roll, 200 ms hangover, 100 ms post-roll and a
    // frame of rounding at each end.
    #expect((48_000...(1440 * 48)).contains(reader.sampleCount))
}

@Test func malformedWAVIsRejectedWithTypedErrors() throws {
    let path = try temporaryDirectory() + "/good.wav"
    let writer = try WAVWriter(path: path, channels: 1)
    var tone = ToneGenerator()
    try writer.write(tone.nextFrame())
    try writer.close()
    let good = try readBytes(path)

    func error(_ bytes: [UInt8]) -> MediaFileError? {
        do {
            _ = try WAVReader(bytes: bytes)
            return nil
        } catch { return error }
    }
    #expect(error(good) == nil)
    #expect(error([]) == .badMagic(format: "WAV", expected: "\"RIFF\" <size> \"WAVE\""))
    #expect(error(Array("RIFX0000WAVE".utf8)) == .badMagic(format: "WAV", expected: "\"RIFF\" <size> \"WAVE\""))
    // Truncated inside the data chunk, inside the fmt chunk, right after the magic.
    for length in [good.count - 1, 30, 12, 13] {
        guard case .truncated(format: "WAV", _, _)? = error(Array(good.prefix(length))) else {
            Issue.record("length \(length): \(String(describing: error(Array(good.prefix(length)))))")
            continue
        }
    }
    var float = good
    float[20] = 3
    #expect(
        error(float)
            == .invalidField(format: "WAV", offset: 20, field: "format tag (only PCM is supported)", value: "3")
    )
    var sixChannels = good
    sixChannels[22] = 6
    #expect(error(sixChannels) == .invalidField(format: "WAV", offset: 22, field: "channel count", value: "6"))
    var eightBit = good
    eightBit[34] = 8
    if case .invalidField(_, _, let field, _)? = error(eightBit) {
        #expect(field.contains("bits"))
    } else {
        Issue.record("8-bit accepted")
    }
    var oddSize = good
    oddSize[40] = 3
    if case .invalidField(_, _, let field, _)? = error(oddSize) {
        #expect(field.contains("data size"))
    } else {
        Issue.record("odd size accepted")
    }
    var hugeSize = good
    hugeSize[43] = 0x7F
    if case .truncated? = error(hugeSize) {} else { Issue.record("oversized data accepted") }
    // Random garbage after a valid magic never crashes.
    var state: UInt32 = 99
    for _ in 0..<200 {
        var bytes = good
        for _ in 0..<4 {
            state = state &* 1_664_525 &+ 1_013_904_223
            bytes[12 + Int(state >> 8) % 40] = UInt8(truncatingIfNeeded: state >> 24)
        }
        _ = error(bytes)
    }
}

@Test func wavWithStreamingSizesAndExtensibleFormatReads() throws {
    // ffmpeg writing to a pipe leaves the sizes at 0xFFFFFFFF; WAVE_FORMAT_EXTENSIBLE (0xFFFE)
    // with the PCM sub-format is what many tools write.
    var tone = ToneGenerator(frequency: 500, channels: 2)
    let frame = tone.nextFrame()
    var bytes = [UInt8]()
    bytes.appendASCII("RIFF")
    bytes.appendLE32(0xFFFF_FFFF)
    bytes.appendASCII("WAVE")
    bytes.appendASCII("fmt ")
    bytes.appendLE32(40)
    bytes.appendLE16(0xFFFE)
    bytes.appendLE16(2)
    bytes.appendLE32(48_000)
    bytes.appendLE32(192_000)
    bytes.appendLE16(4)
    bytes.appendLE16(16)
    bytes.appendLE16(22)
    bytes.appendLE16(16)
    bytes.appendLE32(3)
    bytes.appendLE16(1)
    bytes += [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
    bytes.appendASCII("LIST")
    bytes.appendLE32(3)
    bytes += [1, 2, 3, 0]  // odd chunk, padded
    bytes.appendASCII("data")
    bytes.appendLE32(0xFFFF_FFFF)
    bytes += frame.samples.littleEndianBytes
    var reader = try WAVReader(bytes: bytes)
    #expect(reader.format == PCMFormat(sampleRate: 48_000, channels: 2))
    #expect(reader.readFrame() == frame)
    #expect(reader.readFrame() == nil)
}

/// A 48 kHz stereo call written as a 16 kHz mono WAV (speech-to-text's format): the header
/// says 16 kHz mono, the length is the audio's, the tone keeps its frequency, and ffprobe
/// agrees.
@Test func wavWriterConvertsToTheFilesRateAndChannels() async throws {
    let path = try temporaryDirectory() + "/speech-16k.wav"
    var tone = ToneGenerator(frequency: 700, amplitude: 0.3, channels: 2)
    let writer = try WAVWriter(path: path, channels: 1, sampleRate: 16_000)
    for _ in 0..<50 { try writer.write(tone.nextFrame()) }
    try writer.close()
    var reader = try WAVReader(path: path)
    #expect(reader.format == PCMFormat(sampleRate: 16_000, channels: 1))
    #expect(abs(reader.sampleCount - 48_000) <= 48, "1 s at 16 kHz, read back as 48 kHz samples: \(reader.sampleCount)")
    var samples: [Double] = []
    while let frame = reader.readFrame() { samples += frame.samples.map(Double.init) }
    let middle = Array(samples[4_800..<43_200])
    var crossings = 0
    for i in 1..<middle.count where (middle[i] >= 0) != (middle[i - 1] >= 0) { crossings += 1 }
    let frequency: Double = Double(crossings) / 2 / 0.8
    #expect(abs(frequency - 700) < 3)
    let probe = try await run(
        "/usr/bin/ffprobe",
        ["-v", "error", "-show_entries", "stream=sample_rate,channels", "-of", "csv=p=0", path]
    )
    #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "16000,1")
}
