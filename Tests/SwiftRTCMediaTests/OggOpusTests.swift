import Foundation
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCRTP
import Testing

@testable import SwiftRTCMedia

private func readAll(_ path: String) throws -> (OggOpusReader, [EncodedFrame]) {
    var reader = try OggOpusReader(path: path)
    var frames: [EncodedFrame] = []
    while let frame = try reader.readFrame() { frames.append(frame) }
    return (reader, frames)
}

@Test(arguments: [1, 2])
func oggOpusFromFfmpegReadsAsFfprobeSeesIt(channels: Int) async throws {
    let path = try await makeOggOpus(in: try temporaryDirectory(), seconds: 1, channels: channels)
    let (reader, frames) = try readAll(path)
    #expect(reader.head.channels == channels && reader.head.preSkip == 312 && reader.head.inputSampleRate == 48_000)
    #expect(reader.vendor.hasPrefix("Lavf"))
    #expect(reader.comments.contains { $0.hasPrefix("encoder=") })
    let probed = try await probePackets(path)
    #expect(frames.count == probed.count)
    #expect(frames.map(\.data.count) == probed.map(\.size))
    #expect(frames.enumerated().allSatisfy { $0.element.timestamp == UInt32($0.offset * 960) })
    // 1 s plus pre-skip, trimmed on the last page.
    #expect(reader.granulePosition == 48_000 + 312)
}

@Test func oggOpusRoundTripsAndFfmpegDecodesIt() async throws {
    let directory = try temporaryDirectory()
    let (source, frames) = try readAll(try await makeOggOpus(in: directory, seconds: 2, channels: 2))
    let copy = directory + "/copy.opus"
    let writer = try OggOpusWriter(path: copy, head: source.head, pageDuration: .milliseconds(200))
    for frame in frames { try writer.write(frame) }
    try writer.close()
    let (back, read) = try readAll(copy)
    #expect(back.head == source.head && back.vendor == "SwiftRTC")
    #expect(read == frames)
    #expect(back.granulePosition == Int64(frames.count * 960))
    // ffmpeg decodes it cleanly to the same length (pre-skip dropped).
    let probe = try await run(
        "/usr/bin/ffprobe",
        ["-v", "error", "-show_entries", "stream=codec_name,channels,duration_ts", "-of", "csv=p=0", copy]
    )
    #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "opus,2,\(frames.count * 960)")
    let decodeErrors = try await run("/usr/bin/ffmpeg", ["-v", "error", "-i", copy, "-f", "null", "-"])
    #expect(decodeErrors.isEmpty)
    // 2 s in pages of 200 ms: header pages + about 10 audio pages, each with a valid CRC.
    var pages = try OggPageReader(path: copy)
    var count = 0, eos = 0
    while let (page, _) = try pages.readPage() {
        count += 1
        if page.flags.contains(.endOfStream) { eos += 1 }
    }
    #expect((11...13).contains(count) && eos == 1)
}

@Test func oggOpusWriterTrimsSilenceByDecodedPCM() async throws {
    let directory = try temporaryDirectory()
    let (source, packets) = try readAll(try await makeOggOpus(in: directory, seconds: 3))
    // Pretend the decoded audio was 1 s silence, 1 s speech, 1 s silence.
    let pcm = frames(
        of: [Int16](repeating: 0, count: 48_000) + speechLike(milliseconds: 1000)
            + [Int16](repeating: 0, count: 48_000 + 960 * 4)
    )
    let trimmed = directory + "/trimmed.opus"
    let writer = try OggOpusWriter(
        path: trimmed,
        head: source.head,
        trimming: SilenceTrimming(preRollMilliseconds: 100, postRollMilliseconds: 100)
    )
    for (frame, audio) in zip(packets, pcm) { try writer.write(frame, pcm: audio) }
    try writer.close()
    let (_, kept) = try readAll(trimmed)
    // 1 s speech + 100 ms pre-roll + 200 ms hangover + 100 ms post-roll, give or take a frame.
    #expect((50...72).contains(kept.count))
}

@Test func malformedOggIsRejected() async throws {
    let directory = try temporaryDirectory()
    let bytes = try readBytes(try await makeOggOpus(in: directory, seconds: 0.5))

    func firstError(_ bytes: [UInt8]) -> MediaFileError? {
        let path = directory + "/bad.opus"
        do {
            try writeBytes(bytes, to: path)
            _ = try readAll(path)
            return nil
        } catch let error as MediaFileError { return error } catch { return nil }
    }
    #expect(firstError(bytes) == nil)
    #expect(firstError([]) == .badMagic(format: "Ogg", expected: "\"OggS\""))
    var magic = bytes
    magic[0] = UInt8(ascii: "o")
    #expect(firstError(magic) == .badMagic(format: "Ogg", expected: "\"OggS\""))
    var crc = bytes
    crc[crc.count - 10] ^= 0x01
    guard case .checksumMismatch(format: "Ogg", offset: let offset)? = firstError(crc) else {
        Issue.record("CRC error missed")
        return
    }
    #expect(offset > 0 && offset < bytes.count)
    if case .truncated(format: "Ogg", _, _)? = firstError(Array(bytes.dropLast(5))) {
    } else {
        Issue.record("cut page accepted")
    }
    var version = bytes
    version[4] = 1
    #expect(
        firstError(version) == .invalidField(format: "Ogg", offset: 4, field: "stream structure version", value: "1")
    )
    // A valid page holding something other than OpusHead.
    let vorbis = OggPage(
        flags: .beginningOfStream,
        granulePosition: 0,
        serialNumber: 1,
        sequenceNumber: 0,
        segmentTable: [7],
        body: Array("\u{1}vorbis".utf8)
    )
    #expect(firstError(vorbis.serialized) == .badMagic(format: "Ogg Opus", expected: "an \"OpusHead\" packet first"))
    // Random corruption of the body never crashes (CRC catches it).
    var state: UInt32 = 5
    for _ in 0..<100 {
        var damaged = bytes
        state = state &* 1_664_525 &+ 1_013_904_223
        damaged[Int(state >> 8) % damaged.count] ^= UInt8(truncatingIfNeeded: state >> 24) | 1
        #expect(firstError(damaged) != nil)
    }
}

@Test func oggCRCMatchesAPageFfmpegWrote() async throws {
    let bytes = try readBytes(try await makeOggOpus(in: try temporaryDirectory(), seconds: 0.2))
    let segments = Int(bytes[26])
    let length = 27 + segments + bytes[27..<27 + segments].reduce(0) { $0 + Int($1) }
    var page = Array(bytes.prefix(length))
    let stored = UInt32(page[22]) | UInt32(page[23]) << 8 | UInt32(page[24]) << 16 | UInt32(page[25]) << 24
    for i in 22..<26 { page[i] = 0 }
    #expect(OggCRC.checksum(page) == stored)
    #expect(
        OpusPacket.sampleCount([0xFC]) == 960 && OpusPacket.sampleCount([0x18]) == 2880
            && OpusPacket.sampleCount([0x03]) == nil && OpusPacket.sampleCount([0x1B, 0x03]) == nil
            && OpusPacket.sampleCount([0xF9]) == 1920
    )
}

@Test func oggOpusWriterFillsTimestampGapsSoTimingHolds() async throws {
    let directory = try temporaryDirectory()
    let (source, frames) = try readAll(try await makeOggOpus(in: directory, seconds: 2, channels: 2))
    // Lose 200 ms (frames 20-29) and one frame (50); a stale repeat of frame 40 comes late.
    var received = frames.enumerated().filter { !(20..<30).contains($0.offset) && $0.offset != 50 }.map(\.element)
    received.insert(frames[40], at: 45)
    let path = directory + "/gaps.opus"
    let writer = try OggOpusWriter(path: path, head: source.head)
    for frame in received { try writer.write(frame) }
    try writer.close()
    #expect(writer.skippedFrames == 1)
    let (_, read) = try readAll(path)
    // Every frame is back at its own timestamp; the holes hold TOC-only stereo CELT frames.
    #expect(read.count == frames.count)
    #expect(read.map(\.timestamp) == frames.map(\.timestamp))
    let fillers = read.enumerated().filter { $0.element.data == [0xFC] }.map(\.offset)
    #expect(fillers == Array(20..<30) + [50])
    #expect(
        read.enumerated().filter { $0.element.data != [0xFC] }.map(\.element)
            == frames.enumerated().filter { !fillers.contains($0.offset) }.map(\.element)
    )
    // ffmpeg decodes the concealed frames without complaint, at full length.
    #expect(try await run("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"]).isEmpty)
    let probe = try await run(
        "/usr/bin/ffprobe",
        ["-v", "error", "-show_entries", "stream=duration_ts", "-of", "csv=p=0", path]
    )
    #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "\(frames.count * 960)")
    #expect(OggOpusWriter.gapFillers(samples: 1900, stereo: false).map(\.samples) == [960, 480, 240, 120])
}

@Test func oggOpusStreamStartingLaterKeepsItsPosition() throws {
    // A stream cut from a live one: its first audio page ends at granule 5000 with two
    // 20 ms packets on it, so it starts at 3080 (RFC 7845 section 4.5).
    var tags = [UInt8]()
    tags.appendASCII("OpusTags")
    tags.appendLE32(0)
    tags.appendLE32(0)
    let packet: [UInt8] = [0xFC, 1, 2, 3]
    let pages = [
        OggPage(
            flags: .beginningOfStream,
            granulePosition: 0,
            serialNumber: 7,
            sequenceNumber: 0,
            segmentTable: [19],
            body: OpusHead(channels: 1).packet
        ),
        OggPage(
            flags: [],
            granulePosition: 0,
            serialNumber: 7,
            sequenceNumber: 1,
            segmentTable: [UInt8(tags.count)],
            body: tags
        ),
        OggPage(
            flags: [],
            granulePosition: 5000,
            serialNumber: 7,
            sequenceNumber: 2,
            segmentTable: [4, 4],
            body: packet + packet
        ),
        OggPage(
            flags: .endOfStream,
            granulePosition: 5960,
            serialNumber: 7,
            sequenceNumber: 3,
            segmentTable: [4],
            body: packet
        ),
    ]
    let path = try temporaryDirectory() + "/late.opus"
    try writeBytes(pages.flatMap(\.serialized), to: path)
    let (reader, frames) = try readAll(path)
    #expect(frames.map(\.timestamp) == [3080, 4040, 5000])
    #expect(reader.granulePosition == 5960)
}

@Test func oggOpusWriterLeavesWholePagesWhenNeverClosed() async throws {
    let directory = try temporaryDirectory()
    let (source, frames) = try readAll(try await makeOggOpus(in: directory, seconds: 1))
    let path = directory + "/open.opus"
    let writer = try OggOpusWriter(path: path, head: source.head, pageDuration: .milliseconds(200))
    for frame in frames { try writer.write(frame) }
    // As after a crash: every full page is on disk and reads back; only the last page is missing.
    let (_, read) = try readAll(path)
    #expect(read.count >= frames.count - 11 && read.count < frames.count)
    #expect(read == Array(frames.prefix(read.count)))
    #expect(try await run("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"]).isEmpty)
    withExtendedLifetime(writer) {}
}
