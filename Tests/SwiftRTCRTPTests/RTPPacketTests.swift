import Foundation
import RTPFixtureSupport
import Testing

@testable import SwiftRTCRTP

@Suite struct RTPPacketTests {
    /// aiortc's single-packet files with the values aiortc's tests assert.
    @Test(arguments: [
        ("rtp.bin", false, UInt8(0), UInt16(15743), UInt32(3937035252), [UInt32](), 160, 0),
        ("rtp_dtmf.bin", true, 101, 24152, 4021352124, [], 4, 0),
        ("rtp_only_padding.bin", false, 120, 27759, 4044047131, [], 0, 224),
        ("rtp_only_padding_with_header_extensions.bin", false, 98, 22138, 3171065731, [], 0, 224),
        ("rtp_with_csrc.bin", false, 0, 16082, 144, [2882400001, 3735928559], 160, 0),
        ("rtp_with_sdes_mid.bin", true, 111, 14156, 1327210925, [], 54, 0),
    ])
    func aiortcPackets(
        file: String,
        marker: Bool,
        pt: UInt8,
        seq: UInt16,
        ts: UInt32,
        csrcs: [UInt32],
        payload: Int,
        padding: Int
    ) throws {
        try Fixtures.aiortc(file).withRTP { (p: RTPPacket) throws in
            #expect(p.marker == marker)
            #expect(p.payloadType == pt)
            #expect(p.sequenceNumber == seq)
            #expect(p.timestamp == ts)
            #expect((0..<p.csrcCount).map { p.csrc(at: $0) } == csrcs)
            #expect(p.payloadLength == payload)
            #expect(p.paddingLength == padding)
            #expect(p.isPaddingOnly == (payload == 0))
        }
    }

    @Test func aiortcExtensions() throws {
        try Fixtures.aiortc("rtp_only_padding_with_header_extensions.bin").withRTP { (p: RTPPacket) throws in
            #expect(try p.extensionValue(AbsSendTime.self, id: 2)?.value == 15846540)
        }
        try Fixtures.aiortc("rtp_with_sdes_mid.bin").withRTP { (p: RTPPacket) throws in
            #expect(try p.extensionValue(SDESMid.self, id: 9)?.value == "0")
        }
    }

    /// Malformed packets: each throws a typed error naming what is wrong, none traps.
    @Test(arguments: [
        ("", "RTP fixed header"),
        ("8000", "RTP fixed header"),
        ("400000000000000000000000", "RTP version"),
        ("820000000000000000000000 00000001", "RTP CSRC list"),  // CC=2, one CSRC
        ("900000000000000000000000 bede", "RTP header extension"),
        // Length 2 words, 1 present.
        ("900000000000000000000000 bede0002 10ff0000", "RTP header extension elements"),
        // An element of 4 bytes at byte 1 of a 4-byte block.
        ("900000000000000000000000 bede0001 33ff0000", "RTP header extension element"),
        // A two-byte element past the end.
        ("900000000000000000000000 10000001 0105aaaa", "RTP header extension element"),
        ("a00000000000000000000000 aabb05", "RTP padding count"),  // padding 5 > 3 bytes
        ("a00000000000000000000000 aabb00", "RTP padding count"),  // padding 0 with P set
        ("a00000000000000000000000", "RTP padding"),
    ])
    func malformed(hex: String, what: String) {
        let bytes = [UInt8](hex: hex)
        #expect {
            try bytes.withRTP { _ in }
        } throws: { error in
            (error as? RTPError)?.what == what
        }
    }

    @Test func truncatedPrefixesOfRealPacketsNeverTrap() throws {
        for file in [
            "rtp.bin", "rtp_with_csrc.bin", "rtp_with_sdes_mid.bin", "rtp_only_padding_with_header_extensions.bin",
        ] {
            let bytes = try Fixtures.aiortc(file)
            for length in 0..<bytes.count {
                _ = try? Array(bytes[..<length]).withRTP { $0.payloadLength }
            }
        }
    }

    @Test func writeAndParseRoundTrip() throws {
        let payload: [UInt8] = [1, 2, 3, 4, 5]
        let bytes = try writeRTP(
            RTPHeader(marker: true, payloadType: 96, sequenceNumber: 65535, timestamp: 0xDEADBEEF, ssrc: 0x01020304)
        ) { w in
            try w.appendCSRC(7)
            try w.appendCSRC(8)
            try w.appendExtension(SDESMid(value: "video"), id: 4)
            try w.appendExtension(TransportSequenceNumber(value: 513), id: 3)
            try payload.withUnsafeBytes { try w.appendPayload($0) }
        }
        try bytes.withRTP { (p: RTPPacket) throws in
            #expect(
                p.marker && p.payloadType == 96 && p.sequenceNumber == 65535 && p.timestamp == 0xDEADBEEF
                    && p.ssrc == 0x01020304
            )
            #expect(p.csrcCount == 2 && p.csrc(at: 1) == 8)
            #expect(p.extensionProfile == 0xBEDE)
            #expect(try p.extensionValue(SDESMid.self, id: 4)?.value == "video")
            #expect(try p.extensionValue(TransportSequenceNumber.self, id: 3)?.value == 513)
            #expect(Array(p.payload) == payload)
            #expect((p.payloadOffset - 12 - 8) % 4 == 0)
        }
    }

    @Test func paddingIsWrittenAndSkipped() throws {
        var out = [UInt8](repeating: 0, count: 100)
        let length = try out.withUnsafeMutableBytes { buffer in
            var w = try RTPPacketWriter(
                into: buffer,
                header: RTPHeader(payloadType: 111, sequenceNumber: 1, timestamp: 2, ssrc: 3)
            )
            try [UInt8]([9, 9]).withUnsafeBytes { try w.appendPayload($0) }
            return try w.finish(padding: 6)
        }
        #expect(length == 12 + 2 + 6)
        try Array(out[..<length]).withRTP { (p: RTPPacket) throws in
            #expect(p.paddingLength == 6 && p.payloadLength == 2)
        }
    }

    /// Where the writer says an element's data and the payload start is where the parser
    /// finds them (the send path uses them instead of parsing its packets again), in both
    /// forms, with and without CSRCs and padding of the extension block.
    @Test(arguments: [
        (RTPPacketWriter.ExtensionForm.oneByte, 0), (.oneByte, 2), (.twoByte, 0), (.twoByte, 1),
    ])
    func writerReportsExtensionOffsetsAndHeaderLength(form: RTPPacketWriter.ExtensionForm, csrcs: Int) throws {
        var out = [UInt8](repeating: 0, count: 200)
        let (length, midOffset, tsnOffset, header) = try out.withUnsafeMutableBytes { buffer in
            var w = try RTPPacketWriter(
                into: buffer,
                header: RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3),
                extensionForm: form
            )
            for i in 0..<csrcs { try w.appendCSRC(UInt32(100 + i)) }
            let mid = try w.appendExtension(SDESMid(value: "a"), id: 4)
            let tsn = try w.appendExtension(TransportSequenceNumber(value: 0x1234), id: 5)
            let header = w.headerLength
            try [UInt8](repeating: 7, count: 10).withUnsafeBytes { try w.appendPayload($0) }
            #expect(w.headerLength == header)
            return (try w.finish(), mid, tsn, header)
        }
        try Array(out[..<length]).withRTP { (p: RTPPacket) throws in
            #expect(header == length - p.payloadLength)
            let base = try #require(p.bytes.baseAddress)
            let mid = try #require(p.extensionData(id: 4)?.baseAddress)
            let tsn = try #require(p.extensionData(id: 5)?.baseAddress)
            #expect(mid - base == midOffset && tsn - base == tsnOffset)
            #expect(try p.extensionValue(TransportSequenceNumber.self, id: 5)?.value == 0x1234)
        }
    }

    @Test func writerRejectsWhatDoesNotFit() throws {
        var small = [UInt8](repeating: 0, count: 14)
        small.withUnsafeMutableBytes { buffer in
            #expect(throws: RTPError.bufferTooSmall(needed: 15, available: 14)) {
                var w = try RTPPacketWriter(
                    into: buffer,
                    header: RTPHeader(payloadType: 1, sequenceNumber: 0, timestamp: 0, ssrc: 0)
                )
                try [UInt8]([1, 2, 3]).withUnsafeBytes { try w.appendPayload($0) }
            }
            #expect(throws: RTPError.self) {
                _ = try RTPPacketWriter(
                    into: buffer,
                    header: RTPHeader(payloadType: 128, sequenceNumber: 0, timestamp: 0, ssrc: 0)
                )
            }
        }
        #expect(throws: RTPError.self) {
            _ = try writeRTP(RTPHeader(payloadType: 1, sequenceNumber: 0, timestamp: 0, ssrc: 0)) { w in
                try w.appendExtension(SDESMid(value: "a-mid-longer-than-16"), id: 1)  // one-byte form: 16 bytes at most
            }
        }
    }

    @Test func demultiplexesRTPAndRTCP() throws {
        try Fixtures.aiortc("rtcp_sr.bin").withUnsafeBytes { #expect(RTPDemultiplexer.isRTCP($0)) }
        try Fixtures.aiortc("rtp.bin").withUnsafeBytes {
            #expect(!RTPDemultiplexer.isRTCP($0) && RTPDemultiplexer.isRTPOrRTCP($0))
        }
        [UInt8]([0x00, 0x01, 0, 0]).withUnsafeBytes { #expect(!RTPDemultiplexer.isRTPOrRTCP($0)) }  // STUN
        [UInt8]([22, 0xFE, 0xFD]).withUnsafeBytes { #expect(!RTPDemultiplexer.isRTPOrRTCP($0)) }  // DTLS
    }
}
