import RTPFixtureSupport
import Testing

@testable import SwiftRTCRTP

/// RFC 4588 §4 byte layout: the RTX packet is the original's header with the RTX payload type,
/// sequence number and SSRC (marker, timestamp, CSRCs and extensions kept, padding dropped),
/// then the original sequence number (OSN), then the original payload.
@Suite struct RTXLayoutTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var original: String
        var rtx: String
        /// The original without its padding (what unwrapping gives back).
        var unwrapped: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // V=2, PT 96, seq 0x1234, ts 0x00015f90, SSRC 0x0000_0457; RTX PT 97, seq 7, SSRC 0x8ae.
        Case(
            name: "plain header",
            original: "8060 1234 00015f90 00000457 deadbeef",
            rtx: "8061 0007 00015f90 000008ae 1234 deadbeef",
            unwrapped: "8060 1234 00015f90 00000457 deadbeef"
        ),
        Case(
            name: "marker bit kept",
            original: "80e0 ffff 00000001 00000457 01",
            rtx: "80e1 0007 00000001 000008ae ffff 01",
            unwrapped: "80e0 ffff 00000001 00000457 01"
        ),
        // CC=2: two CSRCs after the SSRC stay in place.
        Case(
            name: "CSRCs kept",
            original: "8260 0001 00000002 00000457 0000000a 0000000b 55",
            rtx: "8261 0007 00000002 000008ae 0000000a 0000000b 0001 55",
            unwrapped: "8260 0001 00000002 00000457 0000000a 0000000b 55"
        ),
        // X=1: a one-byte extension block (RFC 8285, 0xBEDE, one word: id 4 len 1 "1").
        Case(
            name: "header extension kept",
            original: "9060 0100 00000003 00000457 bede0001 40310000 aa bb",
            rtx: "9061 0007 00000003 000008ae bede0001 40310000 0100 aa bb",
            unwrapped: "9060 0100 00000003 00000457 bede0001 40310000 aa bb"
        ),
        // P=1: three bytes of padding (last byte 3) are not carried over.
        Case(
            name: "padding dropped",
            original: "a060 0200 00000004 00000457 cc 000003",
            rtx: "8061 0007 00000004 000008ae 0200 cc",
            unwrapped: "8060 0200 00000004 00000457 cc"
        ),
    ]

    @Test(arguments: cases)
    func wrapsAndUnwrapsByteExactly(_ c: Case) throws {
        var out = [UInt8](repeating: 0, count: 64)
        let length = try [UInt8](hex: c.original).withRTP { p in
            try out.withUnsafeMutableBytes {
                try RTXPacket.wrap(p, payloadType: 97, ssrc: 0x8AE, sequenceNumber: 7, into: $0)
            }
        }
        #expect(Array(out[..<length]).hex == [UInt8](hex: c.rtx).hex)
        var back = [UInt8](repeating: 0, count: 64)
        let backLength = try [UInt8](hex: c.rtx).withRTP { p in
            try back.withUnsafeMutableBytes {
                try RTXPacket.unwrap(p, originalPayloadType: 96, originalSSRC: 0x457, into: $0)
            }
        }
        #expect(Array(back[..<backLength]).hex == [UInt8](hex: c.unwrapped).hex)
    }

    /// A padding-only RTX packet (a bandwidth probe) has no OSN: a typed error, no crash.
    @Test func paddingOnlyProbeDoesNotUnwrap() throws {
        var back = [UInt8](repeating: 0, count: 64)
        #expect(throws: RTPError.self) {
            try [UInt8](hex: "a061 0008 00000004 000008ae 00000004").withRTP { p in
                try back.withUnsafeMutableBytes {
                    try RTXPacket.unwrap(p, originalPayloadType: 96, originalSSRC: 0x457, into: $0)
                }
            }
        }
    }
}
