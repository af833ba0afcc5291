import Foundation
import SwiftRTCCodecs
import Testing

@testable import SwiftRTCMedia

@Test func y4mRoundTripsAndFfmpegReadsIt() async throws {
    let path = try temporaryDirectory() + "/pattern.y4m"
    let written = try writePatternY4M(path, width: 321, height: 241, count: 5)
    var reader = try Y4MReader(path: path)
    #expect(reader.width == 321 && reader.height == 241 && reader.frameRate == (30, 1))
    var read: [VideoFrame] = []
    while let frame = try reader.readFrame() { read.append(frame) }
    #expect(read == written)
    let probe = try await run(
        "/usr/bin/ffprobe",
        [
            "-v", "error", "-count_frames", "-show_entries", "stream=width,height,pix_fmt,nb_read_frames", "-of",
            "csv=p=0", path,
        ]
    )
    #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "321,241,yuv420p,5")
}

@Test func y4mFromFfmpegWithStridesAndRates() async throws {
    let directory = try temporaryDirectory()
    let path = directory + "/ffmpeg.y4m"
    try await run(
        "/usr/bin/ffmpeg",
        [
            "-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=30000/1001", "-frames:v", "3", "-pix_fmt",
            "yuv420p", path,
        ]
    )
    var reader = try Y4MReader(path: path)
    #expect(reader.frameRate == (30000, 1001))
    _ = try reader.readFrame()
    #expect(try reader.readFrame()?.timestamp == 3003)
    _ = try reader.readFrame()
    #expect(try reader.readFrame() == nil)

    // A padded-stride frame is written tight.
    var frame = VideoFrame(width: 4, height: 2, y: 100)
    frame.yStride = 6
    frame.y = [UInt8](repeating: 100, count: 12)
    let tight = directory + "/tight.y4m"
    let writer = try Y4MWriter(path: tight, width: 4, height: 2)
    try writer.write(frame)
    try writer.close()
    var back = try Y4MReader(path: tight)
    #expect(try back.readFrame() == VideoFrame(width: 4, height: 2, y: 100))
}

@Test func malformedY4MIsRejected() throws {
    let directory = try temporaryDirectory()
    let good = directory + "/good.y4m"
    try writePatternY4M(good, width: 160, height: 120, count: 2)
    let bytes = try readBytes(good)

    func firstError(_ bytes: [UInt8]) -> MediaFileError? {
        let path = directory + "/bad.y4m"
        do {
            try writeBytes(bytes, to: path)
            var reader = try Y4MReader(path: path)
            while try reader.readFrame() != nil {}
            return nil
        } catch let error as MediaFileError { return error } catch { return nil }
    }
    #expect(firstError(bytes) == nil)
    #expect(firstError(Array("YUV4MPEG3 W2 H2\n".utf8)) == .badMagic(format: "Y4M", expected: "\"YUV4MPEG2 \""))
    #expect(
        firstError(Array("YUV4MPEG2 W2 H2 C444\n".utf8))
            == .invalidField(
                format: "Y4M",
                offset: 0,
                field: "colour space (only 8-bit 4:2:0 is supported)",
                value: "444"
            )
    )
    #expect(
        firstError(Array("YUV4MPEG2 W0 H2\n".utf8))
            == .invalidField(format: "Y4M", offset: 0, field: "frame size W/H", value: "W0 H2")
    )
    #expect(
        firstError(Array("YUV4MPEG2 W2 H2".utf8))
            == .truncated(format: "Y4M", offset: 15, expected: "stream header ending in a newline")
    )
    guard case .truncated(format: "Y4M", offset: bytes.count - 100, _)? = firstError(Array(bytes.dropLast(100))) else {
        Issue.record("cut frame not reported: \(String(describing: firstError(Array(bytes.dropLast(100)))))")
        return
    }
    var badFrame = bytes
    let second = bytes.count - (6 + 160 * 120 * 3 / 2)
    badFrame[second] = UInt8(ascii: "X")
    #expect(
        firstError(badFrame)
            == .invalidField(format: "Y4M", offset: second, field: "frame header (expected \"FRAME\")", value: "XRAME")
    )
    // Random damage to the stream header ends in an error or a clean read, never a trap.
    var state: UInt32 = 23
    for _ in 0..<100 {
        var damaged = bytes
        for _ in 0..<2 {
            state = state &* 1_664_525 &+ 1_013_904_223
            damaged[Int(state >> 8) % 48] = UInt8(truncatingIfNeeded: state >> 24)
        }
        _ = firstError(damaged)
    }
}

@Test func hugeY4MHeaderCostsNoMoreThanTheFile() throws {
    let path = try temporaryDirectory() + "/huge.y4m"
    try writeBytes(Array("YUV4MPEG2 W8192 H8192 F30:1\nFRAME\n".utf8) + [UInt8](repeating: 16, count: 1000), to: path)
    var reader = try Y4MReader(path: path)
    #expect(
        throws: MediaFileError.truncated(
            format: "Y4M",
            offset: 1034,
            expected: "Y plane of frame 0 (67108864 bytes at offset 34)"
        )
    ) { try reader.readFrame() }
}
