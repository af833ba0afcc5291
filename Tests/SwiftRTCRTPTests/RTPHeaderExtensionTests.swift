import Foundation
import RTPFixtureSupport
import SwiftRTCCore
import Testing

@testable import SwiftRTCRTP

@Suite struct RTPHeaderExtensionTests {
    /// RFC 8285 §4.2: one-byte elements with padding between them and at the end.
    @Test func rfc8285OneByteLayout() throws {
        // ID 1 L=0 (1 byte), ID 2 L=1 (2 bytes), a padding byte, ID 3 L=3 (4 bytes), padding.
        let packet = [UInt8](hex: "900000010000000200000003 bede0003 10aa 21bbcc 00 33ddeeff00 00 99")
        try packet.withRTP { (p: RTPPacket) throws in
            let elements = p.extensions.map { ($0.id, Array($0.data)) }
            #expect(elements.map(\.0) == [1, 2, 3])
            #expect(elements.map(\.1) == [[0xAA], [0xBB, 0xCC], [0xDD, 0xEE, 0xFF, 0x00]])
            #expect(Array(p.payload) == [0x99])
        }
    }

    /// RFC 8285 §4.2: an ID 0 byte is padding whatever its L bits say.
    @Test func rfc8285OneByteID0IsOnePaddingByte() throws {
        try [UInt8](hex: "900000010000000200000003 bede0001 0510aa00").withRTP { (p: RTPPacket) throws in
            #expect(p.extensions.map { "\($0.id)=\(Array($0.data).hex)" } == ["1=aa"])
        }
    }

    /// RFC 8285 §4.2: ID 15 stops processing; elements after it are ignored.
    @Test func rfc8285OneByteID15Stops() throws {
        try [UInt8](hex: "900000010000000200000003 bede0001 10aaf000").withRTP { (p: RTPPacket) throws in
            #expect(p.extensions.map(\.id) == [1])
        }
    }

    /// RFC 8285 §4.3: two-byte elements, including a zero-length one and padding.
    @Test func rfc8285TwoByteLayout() throws {
        try [UInt8](hex: "900000010000000200000003 10000003 0100 0201aa 00 0304bbccddee 0000").withRTP {
            (p: RTPPacket) throws in
            let elements = p.extensions.map { ($0.id, Array($0.data)) }
            #expect(elements.map(\.0) == [1, 2, 3])
            #expect(elements.map(\.1) == [[], [0xAA], [0xBB, 0xCC, 0xDD, 0xEE]])
        }
    }

    @Test func twoByteFormWrites() throws {
        let bytes = try writeRTP(RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 1, ssrc: 1), form: .twoByte) {
            w in
            try w.appendExtension(RTPStreamID(value: "a-rid-longer-than-sixteen"), id: 200)
            try w.appendExtension(id: 5, data: UnsafeRawBufferPointer(start: nil, count: 0))
        }
        try bytes.withRTP { (p: RTPPacket) throws in
            #expect(p.extensionProfile == 0x1000)
            #expect(try p.extensionValue(RTPStreamID.self, id: 200)?.value == "a-rid-longer-than-sixteen")
            #expect(p.extensionData(id: 5)?.count == 0)
        }
    }

    @Test func typedValuesRoundTrip() throws {
        let bytes = try writeRTP(RTPHeader(payloadType: 111, sequenceNumber: 1, timestamp: 1, ssrc: 1)) { w in
            try w.appendExtension(AudioLevel(voiceActivity: true, level: 42), id: 1)
            try w.appendExtension(AbsSendTime(value: 0x123456), id: 2)
            try w.appendExtension(PlayoutDelay(minimum: 10, maximum: 4095), id: 5)
            try w.appendExtension(RepairedRTPStreamID(value: "h"), id: 11)
        }
        try bytes.withRTP { (p: RTPPacket) throws in
            #expect(try p.extensionValue(AudioLevel.self, id: 1) == AudioLevel(voiceActivity: true, level: 42))
            #expect(try p.extensionValue(AbsSendTime.self, id: 2)?.value == 0x123456)
            let delay = try #require(try p.extensionValue(PlayoutDelay.self, id: 5))
            #expect(delay.minimum == 10 && delay.maximum == 4095 && delay.milliseconds == 100...40950)
            #expect(try p.extensionValue(RepairedRTPStreamID.self, id: 11)?.value == "h")
            #expect(try p.extensionValue(AudioLevel.self, id: 9) == nil)
        }
    }

    @Test func shortDataThrows() throws {
        try [UInt8](hex: "900000010000000200000003 bede0001 21aabb00").withRTP { (p: RTPPacket) throws in
            #expect(throws: RTPError.self) { _ = try p.extensionValue(AbsSendTime.self, id: 2) }
        }
    }

    @Test func extmapPicksKnownURIs() {
        let ids = RTPHeaderExtensionIDs(extmap: [
            1: AudioLevel.uri, 3: TransportSequenceNumber.uri, 4: SDESMid.uri, 10: RTPStreamID.uri,
            14: "urn:ietf:params:rtp-hdrext:toffset",
        ])
        #expect(
            ids.audioLevel == 1 && ids.transportSequenceNumber == 3 && ids.mid == 4 && ids.rid == 10
                && ids.absSendTime == nil
        )
    }

    /// The header extensions of real Chrome packets, as decoded in vectors/rtp-payloads-real-*.json.
    @Test func chromePacketsMatchTheVectors() throws {
        let vectors = try Fixtures.json(
            Fixtures.directory.appendingPathComponent("vectors/rtp-payloads-real-chrome-156-vp8-opus-hdrext.json")
        )
        let captures = vectors["captures"] as! [String: [String: Any]]
        var checked = 0
        for (name, capture) in captures {
            let url = Fixtures.own.appendingPathComponent("\(name).pcap")
            let datagrams = try Fixtures.datagrams(url)
            for kind in ["vp8", "opus", "rtx"] {
                for entry in capture[kind] as! [[String: Any]] {
                    let seq = entry["seq"] as! Int, ssrc = entry["ssrc"] as! Int
                    let packet = try #require(
                        datagrams.first { d in
                            d.payload.count == entry["packet_length"] as! Int
                                && (try? d.payload.withRTP {
                                    $0.ssrc == UInt32(ssrc) && $0.sequenceNumber == UInt16(seq)
                                }) == true
                        }
                    )
                    try packet.payload.withRTP { (p: RTPPacket) throws in
                        #expect(p.marker == (entry["marker"] as! Int == 1))
                        #expect(Int(p.payloadType) == entry["pt"] as! Int)
                        #expect(Int(p.timestamp) == entry["ts"] as! Int)
                        #expect(p.extensionProfile.map { String(format: "0x%04x", $0) } == entry["profile"] as? String)
                        #expect((p.paddingLength > 0) == (entry["padding"] as! Int == 1))
                        let expected = (entry["header_extensions"] as! [[String: Any]]).map {
                            "\($0["id"]!)=\($0["value"]!)"
                        }
                        #expect(p.extensions.map { "\($0.id)=\(Array($0.data).hex)" } == expected)
                        for ext in entry["header_extensions"] as! [[String: Any]] {
                            let id = UInt8(ext["id"] as! Int), value = ext["value"] as! String
                            switch ext["uri"] as! String {
                            case AbsSendTime.uri:
                                #expect(
                                    try p.extensionValue(AbsSendTime.self, id: id)?.value == UInt32(value, radix: 16)
                                )
                            case TransportSequenceNumber.uri:
                                #expect(
                                    try p.extensionValue(TransportSequenceNumber.self, id: id)?.value
                                        == UInt16(value, radix: 16)
                                )
                            case SDESMid.uri:
                                #expect(
                                    try p.extensionValue(SDESMid.self, id: id)?.value
                                        == String(decoding: [UInt8](hex: value), as: UTF8.self)
                                )
                            case RTPStreamID.uri:
                                #expect(
                                    try p.extensionValue(RTPStreamID.self, id: id)?.value == entry["rid_ascii"]
                                        as? String
                                )
                            case AudioLevel.uri:
                                #expect(
                                    try p.extensionValue(AudioLevel.self, id: id)?.level == UInt8(value, radix: 16)!
                                        & 0x7F
                                )
                            default: break
                            }
                        }
                        if let descriptor = entry["vp8_descriptor"] as? [String: Any] {
                            let (d, length) = try VP8PayloadDescriptor.parse(p.payload)
                            #expect(length == descriptor["descriptor_length"] as! Int)
                            #expect(d.startOfPartition == (descriptor["S"] as! Int == 1))
                            #expect(Int(d.partitionIndex) == descriptor["PID"] as! Int)
                            #expect(d.pictureID.map(Int.init) == descriptor["PictureID_15bit"] as? Int)
                            if let header = descriptor["vp8_payload_header"] as? [String: Any] {
                                let h = try #require(
                                    VP8FrameHeader(parsing: p.payload.slice(length, p.payloadLength - length))
                                )
                                #expect(h.isKeyframe == (header["P_inverse_keyframe"] as! Int == 0))
                                #expect(h.width == header["width"] as? Int && h.height == header["height"] as? Int)
                            }
                        }
                        if let toc = entry["opus_toc"] as? [String: Any] {
                            let t = try OpusTOC(parsing: p.payload)
                            #expect(Int(t.configuration) == toc["config"] as! Int)
                            #expect(t.isStereo == (toc["stereo"] as! Int == 1))
                            #expect(t.samples == 960)
                        }
                        if let osn = entry["rtx_osn"] as? Int {
                            #expect(Int(p.payload.u16(0)) == osn)
                        }
                    }
                    checked += 1
                }
            }
        }
        #expect(checked == 16)
    }
}
