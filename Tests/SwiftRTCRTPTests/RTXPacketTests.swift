import RTPFixtureSupport
import Testing

@testable import SwiftRTCRTP

@Suite struct RTXPacketTests {
    @Test func wrapAndUnwrapRestoreTheOriginal() throws {
        let original = try writeRTP(
            RTPHeader(marker: true, payloadType: 96, sequenceNumber: 4242, timestamp: 90_000, ssrc: 1111)
        ) { w in
            try w.appendExtension(SDESMid(value: "1"), id: 4)
            try [UInt8]([0x10, 1, 2, 3]).withUnsafeBytes { try w.appendPayload($0) }
        }
        var rtx = [UInt8](repeating: 0, count: 100)
        let rtxLength = try original.withRTP { p in
            try rtx.withUnsafeMutableBytes {
                try RTXPacket.wrap(p, payloadType: 97, ssrc: 2222, sequenceNumber: 7, into: $0)
            }
        }
        try Array(rtx[..<rtxLength]).withRTP { (p: RTPPacket) throws in
            #expect(p.payloadType == 97 && p.ssrc == 2222 && p.sequenceNumber == 7 && p.marker && p.timestamp == 90_000)
            #expect(Array(p.payload) == [0x10, 0x92, 0x10, 1, 2, 3])  // OSN 4242 = 0x1092
            #expect(try p.extensionValue(SDESMid.self, id: 4)?.value == "1")
        }
        var back = [UInt8](repeating: 0, count: 100)
        let backLength = try Array(rtx[..<rtxLength]).withRTP { p in
            try back.withUnsafeMutableBytes {
                try RTXPacket.unwrap(p, originalPayloadType: 96, originalSSRC: 1111, into: $0)
            }
        }
        #expect(Array(back[..<backLength]) == original)
    }

    /// A simulcast encoding's RTX carries its rid as a repaired rid (RFC 8852 §3.2), in both
    /// header forms; an id the one-byte form cannot hold leaves the element as it was.
    @Test(arguments: [false, true])
    func aRidIsResentAsARepairedRid(twoByte: Bool) throws {
        let original = try writeRTP(
            RTPHeader(payloadType: 96, sequenceNumber: 9, timestamp: 3000, ssrc: 1111),
            form: twoByte ? .twoByte : .oneByte
        ) { w in
            try w.appendExtension(SDESMid(value: "1"), id: 4)
            try w.appendExtension(RTPStreamID(value: "h"), id: 10)
            try [UInt8]([0x10, 1]).withUnsafeBytes { try w.appendPayload($0) }
        }
        for (to, expected) in [(UInt8(11), UInt8(11)), (15, twoByte ? 15 : 10)] {
            var rtx = [UInt8](repeating: 0, count: 100)
            let length = try original.withRTP { p in
                try rtx.withUnsafeMutableBytes {
                    try RTXPacket.wrap(
                        p,
                        payloadType: 97,
                        ssrc: 2222,
                        sequenceNumber: 1,
                        renamingExtension: (10, to),
                        into: $0
                    )
                }
            }
            try Array(rtx[..<length]).withRTP { (p: RTPPacket) throws in
                #expect(try p.extensionValue(SDESMid.self, id: 4)?.value == "1")
                #expect(try p.extensionValue(RepairedRTPStreamID.self, id: expected)?.value == "h")
                if expected != 10 { #expect(p.extensions.allSatisfy { $0.id != 10 }) }
                #expect(Array(p.payload) == [0, 9, 0x10, 1])
            }
        }
    }

    /// Chrome's retransmissions in the capture unwrap to the very packets of the video stream
    /// they repair (same payload, timestamp and marker); padding-only probes have no OSN.
    @Test func chromeRetransmissionsUnwrapToTheOriginals() throws {
        let url = Fixtures.own.appendingPathComponent("chrome-156-plain-rtp-opus-vp8-rtx-twcc.pcap")
        var originals: [UInt16: [UInt8]] = [:]
        for bytes in try Fixtures.rtpPackets(url, ssrc: 765_957_555) {
            try bytes.withRTP {
                originals[$0.sequenceNumber] =
                    Array($0.payload) + [$0.marker ? 1 : 0] + withUnsafeBytes(of: $0.timestamp) { Array($0) }
            }
        }
        var out = [UInt8](repeating: 0, count: 1500)
        var repaired = 0, probes = 0
        for bytes in try Fixtures.rtpPackets(url, ssrc: 598_342_781) {
            try bytes.withRTP { (p: RTPPacket) throws in
                if p.isPaddingOnly {
                    probes += 1
                    #expect(throws: RTPError.self) {
                        _ = try out.withUnsafeMutableBytes {
                            try RTXPacket.unwrap(p, originalPayloadType: 96, originalSSRC: 765_957_555, into: $0)
                        }
                    }
                    return
                }
                let length = try out.withUnsafeMutableBytes {
                    try RTXPacket.unwrap(p, originalPayloadType: 96, originalSSRC: 765_957_555, into: $0)
                }
                try Array(out[..<length]).withRTP { (o: RTPPacket) throws in
                    #expect(o.ssrc == 765_957_555 && o.payloadType == 96)
                    let original = try #require(originals[o.sequenceNumber])
                    #expect(
                        Array(o.payload) + [o.marker ? 1 : 0] + withUnsafeBytes(of: o.timestamp) { Array($0) }
                            == original
                    )
                    repaired += 1
                }
            }
        }
        #expect(repaired > 0)
        // The vectors' padding-only RTX packets (rtx_osn null) come from this stream too.
        #expect(probes + repaired == 27)
    }
}
