import Foundation
import RTPFixtureSupport
import SwiftRTCCore
import Testing

@testable import SwiftRTCRTP
@testable import SwiftRTCReceive

/// Reassembly of real producers' VP8 and Opus streams through ``FrameAssembler`` (Fixtures/rtp, recorded from GStreamer
/// and ffmpeg with record.sh): the frames the producer sent, also after the test drops,
/// duplicates and reorders packets.
@Suite struct FrameAssemblerTests {
    struct Frame: Equatable {
        var timestamp: UInt32
        var size: Int
        var keyframe: Bool
    }

    struct Result {
        var frames: [Frame] = []
        var width: Int?
        var height: Int?
        var lost = 0
        var duplicates = 0
    }

    /// Runs packets (with arrival times) through a frame assembler.
    static func assemble(_ packets: [(bytes: [UInt8], arrival: Double)], codec: String) -> Result {
        let assembler = FrameAssembler(
            codec: codec == "VP8" ? .vp8 : .opus,
            capacity: 256,
            slotSize: 1600,
            maximumWait: 0.05
        )
        var result = Result()
        func take(_ frame: EncodedFrame) {
            result.frames.append(Frame(timestamp: frame.timestamp, size: frame.data.count, keyframe: frame.isKeyframe))
            if frame.isKeyframe, frame.codec == .vp8 {
                result.width = frame.width
                result.height = frame.height
            }
        }
        for packet in packets {
            packet.bytes.withUnsafeBytes { _ = assembler.insert($0, arrival: packet.arrival) }
            while let frame = assembler.nextFrame(now: packet.arrival) { take(frame) }
        }
        while let frame = assembler.flush() { take(frame) }
        result.lost = assembler.jitterBuffer.lostPackets
        result.duplicates = assembler.jitterBuffer.duplicates + assembler.jitterBuffer.latePackets
        return result
    }

    static let files = ["gstreamer-vp8.pcapng", "ffmpeg-vp8.pcap", "gstreamer-opus.pcapng", "ffmpeg-opus-sll2.pcapng"]

    func load(_ file: String) throws -> (Fixtures.Expected, [[UInt8]]) {
        let expected = try Fixtures.expected(file)
        let packets = try Fixtures.rtpPackets(Fixtures.own.appendingPathComponent(file), ssrc: expected.ssrc)
        return (expected, packets)
    }

    @Test(arguments: files)
    func assemblesTheProducersFrames(file: String) throws {
        let (expected, packets) = try load(file)
        let result = Self.assemble(packets.enumerated().map { ($1, Double($0) * 0.001) }, codec: expected.codec)
        #expect(result.frames.map(\.size) == expected.frames.map(\.size))
        #expect(result.frames.map(\.keyframe) == expected.frames.map(\.keyframe))
        #expect(result.width == expected.width && result.height == expected.height)
        #expect(result.lost == 0 && result.duplicates == 0)
        if expected.codec == "VP8" { #expect(packets.count > expected.frames.count, "frames span several packets") }
    }

    /// Every packet twice, and pairs swapped: the same frames.
    @Test(arguments: files)
    func duplicatesAndReorderingChangeNothing(file: String) throws {
        let (expected, packets) = try load(file)
        var shuffled: [(bytes: [UInt8], arrival: Double)] = []
        var i = 0
        while i < packets.count {
            let time = Double(i) * 0.001
            if i + 1 < packets.count {
                shuffled += [(packets[i + 1], time), (packets[i], time), (packets[i + 1], time)]
            } else {
                shuffled.append((packets[i], time))
            }
            shuffled.append((packets[i], time))
            i += 2
        }
        let result = Self.assemble(shuffled, codec: expected.codec)
        #expect(result.frames.map(\.size) == expected.frames.map(\.size))
        #expect(result.frames.map(\.keyframe) == expected.frames.map(\.keyframe))
        #expect(result.lost == 0)
        #expect(result.duplicates == shuffled.count - packets.count)
    }

    /// Every 7th packet dropped (never the last): the frames whose packets all arrived come out
    /// whole and in order, the others are skipped, and the gaps are reported, not waited on forever.
    @Test(arguments: files)
    func lossSkipsOnlyTheDamagedFrames(file: String) throws {
        let (expected, packets) = try load(file)
        let dropped = Set(stride(from: 3, to: packets.count - 1, by: 7))
        var damaged = Set<UInt32>()
        for i in dropped { try packets[i].withRTP { damaged.insert($0.timestamp) } }
        let whole = Self.assemble(packets.enumerated().map { ($1, Double($0) * 0.001) }, codec: expected.codec).frames
        let survivors = whole.filter { !damaged.contains($0.timestamp) }
        let kept = packets.enumerated().filter { !dropped.contains($0.offset) }.map {
            ($0.element, Double($0.offset) * 0.02)
        }
        let result = Self.assemble(kept, codec: expected.codec)
        #expect(result.frames == survivors)
        #expect(result.lost == dropped.count)
        #expect(survivors.count < expected.frames.count && survivors.count > 0)
    }

    /// The GStreamer rtpbin capture: 90 frames (Fixtures/rtp/README.md), 320x240.
    @Test func gstreamerRtpbinCapture() throws {
        let url = Fixtures.own.appendingPathComponent("gstreamer-1.22-vp8-rtp-rtcp.pcap")
        let packets = try Fixtures.rtpPackets(url, ssrc: 1_608_188_619)
        let result = Self.assemble(packets.enumerated().map { ($1, Double($0) * 0.001) }, codec: "VP8")
        #expect(result.frames.count == 90)
        #expect(result.width == 320 && result.height == 240)
        #expect(result.frames.first?.keyframe == true)
    }

    /// Chrome sends padding-only packets on the video SSRC: sequence fillers, never frames.
    @Test func chromePaddingPacketsAreNotFrames() throws {
        let url = Fixtures.own.appendingPathComponent("chrome-156-plain-rtp-opus-vp8-rtx-twcc.pcap")
        let packets = try Fixtures.rtpPackets(url, ssrc: 765_957_555)
        var padding = 0, ends = 0
        for bytes in packets {
            try bytes.withRTP { (p: RTPPacket) in
                if p.isPaddingOnly { padding += 1 } else if p.marker { ends += 1 }
            }
        }
        let result = Self.assemble(packets.enumerated().map { ($1, Double($0) * 0.001) }, codec: "VP8")
        #expect(result.frames.count == ends)
        #expect(result.width == 320 && result.height == 180)
        #expect(result.lost == 0)
        // In this capture Chrome probed with padding on the RTX SSRC only; a padding-only packet
        // injected on the video SSRC after each frame keeps the sequence and adds no frame.
        #expect(padding == 0)
        var injected: [[UInt8]] = []
        var sequence: UInt16 = 0
        for bytes in packets.prefix(20) {
            var copy = bytes
            copy[2] = UInt8(sequence >> 8)
            copy[3] = UInt8(sequence & 0xFF)
            injected.append(copy)
            sequence &+= 1
            if bytes[1] & 0x80 != 0 {
                injected.append(
                    try writeRTP(RTPHeader(payloadType: 96, sequenceNumber: sequence, timestamp: 0, ssrc: 765_957_555))
                    { w in
                        _ = try w.payloadSpace()
                    }
                )
                injected[injected.count - 1] = try Self.padded(injected[injected.count - 1])
                sequence &+= 1
            }
        }
        let withPadding = Self.assemble(injected.enumerated().map { ($1, Double($0) * 0.001) }, codec: "VP8")
        let plain = Self.assemble(packets.prefix(20).enumerated().map { ($1, Double($0) * 0.001) }, codec: "VP8")
        #expect(withPadding.frames.map(\.size) == plain.frames.map(\.size))
        #expect(withPadding.lost == 0)
    }

    static func padded(_ header: [UInt8]) throws -> [UInt8] {
        var bytes = header + [UInt8](repeating: 0, count: 99) + [100]
        bytes[0] |= 0x20
        try bytes.withRTP { #expect($0.isPaddingOnly) }
        return bytes
    }
}
