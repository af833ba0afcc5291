import Foundation
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCRTP
import Testing

@testable import SwiftRTCMedia

@Test func ivfFromVpxencReadsAsFfprobeSeesIt() async throws {
    let directory = try temporaryDirectory()
    let path = try await makeIVF(in: directory, count: 30)
    var reader = try IVFReader(path: path)
    #expect(reader.width == 320 && reader.height == 240 && reader.headerFrameCount == 30)
    var frames: [EncodedFrame] = []
    while let frame = try reader.readFrame() { frames.append(frame) }
    let probed = try await probePackets(path)
    #expect(frames.count == 30 && probed.count == 30)
    for (frame, packet) in zip(frames, probed) {
        #expect(frame.data.count == packet.size)
        #expect(frame.isKeyframe == packet.keyframe)
        // vpxenc's time base is 1/30 s: frame n at n * 3000 ticks of 90 kHz.
        #expect(frame.timestamp == UInt32(packet.pts * 3000))
    }
    #expect(frames[0].isKeyframe && frames[15].isKeyframe && !frames[1].isKeyframe)
}

@Test func ivfRoundTripsAndDecodesToTheSamePattern() async throws {
    let directory = try temporaryDirectory()
    var reader = try IVFReader(path: try await makeIVF(in: directory, count: 20))
    var frames: [EncodedFrame] = []
    while let frame = try reader.readFrame() { frames.append(frame) }
    // Start near the RTP timestamp wrap to check unwrapping.
    let shifted = frames.map {
        EncodedFrame(codec: .vp8, data: $0.data, timestamp: $0.timestamp &+ 0xFFFF_0000, isKeyframe: $0.isKeyframe)
    }
    let copy = directory + "/copy.ivf"
    let writer = try IVFWriter(path: copy, width: 320, height: 240)
    for frame in shifted { try writer.write(frame) }
    try writer.close()
    var back = try IVFReader(path: copy)
    #expect(back.headerFrameCount == 20 && back.timeBase == (1, 90_000))
    var read: [EncodedFrame] = []
    while let frame = try back.readFrame() { read.append(frame) }
    #expect(read == frames)

    // libvpx (through ffmpeg) decodes our file; the counter reads back from every frame.
    let decoded = directory + "/decoded.y4m"
    try await run("/usr/bin/ffmpeg", ["-v", "error", "-i", copy, "-pix_fmt", "yuv420p", decoded])
    var pictures = try Y4MReader(path: decoded)
    var counters: [Int?] = []
    while let picture = try pictures.readFrame() { counters.append(TestPatternSource.readFrameCounter(from: picture)) }
    #expect(counters == (0..<20).map { $0 })
}

@Test func malformedIVFIsRejected() async throws {
    let directory = try temporaryDirectory()
    let bytes = try readBytes(try await makeIVF(in: directory, count: 3))

    func firstError(_ bytes: [UInt8]) -> MediaFileError? {
        let path = directory + "/bad.ivf"
        do {
            try writeBytes(bytes, to: path)
            var reader = try IVFReader(path: path)
            while try reader.readFrame() != nil {}
            return nil
        } catch let error as MediaFileError { return error } catch { return nil }
    }
    #expect(firstError(bytes) == nil)
    #expect(firstError([]) == .badMagic(format: "IVF", expected: "\"DKIF\""))
    var magic = bytes
    magic[0] = UInt8(ascii: "X")
    #expect(firstError(magic) == .badMagic(format: "IVF", expected: "\"DKIF\""))
    var vp9 = bytes
    vp9[10] = UInt8(ascii: "9")
    #expect(
        firstError(vp9)
            == .invalidField(format: "IVF", offset: 8, field: "codec FourCC (only VP80 is supported)", value: "VP90")
    )
    var zeroRate = bytes
    zeroRate[16] = 0
    zeroRate[17] = 0
    if case .invalidField(_, 16, _, _)? = firstError(zeroRate) {} else { Issue.record("zero time base accepted") }
    #expect(
        firstError(Array(bytes.prefix(20)))
            == .truncated(format: "IVF", offset: 20, expected: "file header (32 bytes at offset 0)")
    )
    #expect(firstError(Array("RIFF".utf8)) == .badMagic(format: "IVF", expected: "\"DKIF\""))
    if case .truncated(format: "IVF", offset: bytes.count - 7, _)? = firstError(Array(bytes.dropLast(7))) {
    } else {
        Issue.record("cut frame accepted")
    }
    var huge = bytes
    huge[35] = 0x7F
    #expect(
        firstError(huge)
            == .invalidField(
                format: "IVF",
                offset: 32,
                field: "frame size",
                value: "\(Int(huge[32]) | Int(huge[33]) << 8 | Int(huge[34]) << 16 | 0x7F << 24)"
            )
    )
    // Random damage to headers and frame sizes ends in an error or a clean end, never a trap.
    var state: UInt32 = 17
    for _ in 0..<100 {
        var damaged = bytes
        for _ in 0..<3 {
            state = state &* 1_664_525 &+ 1_013_904_223
            damaged[Int(state >> 8) % min(64, damaged.count)] = UInt8(truncatingIfNeeded: state >> 24)
        }
        _ = firstError(damaged)
    }
}

@Test func ivfWriterIsCompleteAfterEveryFrame() async throws {
    let directory = try temporaryDirectory()
    var reader = try IVFReader(path: try await makeIVF(in: directory, count: 10))
    let path = directory + "/open.ivf"
    let writer = try IVFWriter(path: path, width: 320, height: 240)
    for written in 1...10 {
        try writer.write(try reader.readFrame()!)
        // Read while the writer is still open, as after a crash.
        var partial = try IVFReader(path: path)
        var count = 0
        while try partial.readFrame() != nil { count += 1 }
        #expect(count == written && partial.headerFrameCount == written)
    }
    withExtendedLifetime(writer) {}
}
