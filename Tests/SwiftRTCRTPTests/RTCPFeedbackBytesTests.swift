import RTPFixtureSupport
import Testing

@testable import SwiftRTCRTP

/// Feedback messages against their RFC layouts, byte for byte, both ways: generic NACK and PLI
/// (RFC 4585 §6.1-6.3), FIR (RFC 5104 §4.3.1).
@Suite struct RTCPFeedbackBytesTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var packet: RTCPPacket
        var bytes: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // V=2 P=0 FMT=1 | PT=205 RTPFB | length 3 | sender | media | PID 0x03e8 BLP 0b101 (1001, 1003).
        Case(
            name: "NACK one pair",
            packet: .nack(GenericNACK(senderSSRC: 0x11223344, mediaSSRC: 0x55667788, lost: [1000, 1001, 1003])),
            bytes: "81cd0003 11223344 55667788 03e80005"
        ),
        // Two FCI entries: 17 apart does not fit one BLP.
        Case(
            name: "NACK two pairs",
            packet: .nack(GenericNACK(senderSSRC: 1, mediaSSRC: 2, lost: [10, 27])),
            bytes: "81cd0004 00000001 00000002 000a0000 001b0000"
        ),
        // Across the wrap: 65535 is the PID, 0 and 1 bits 0 and 1.
        Case(
            name: "NACK across the wrap",
            packet: .nack(GenericNACK(senderSSRC: 1, mediaSSRC: 2, lost: [65535, 0, 1])),
            bytes: "81cd0003 00000001 00000002 ffff0003"
        ),
        // V=2 FMT=1 | PT=206 PSFB | length 2 | sender | media.
        Case(
            name: "PLI",
            packet: .pictureLossIndication(PictureLossIndication(senderSSRC: 0x11223344, mediaSSRC: 0x55667788)),
            bytes: "81ce0002 11223344 55667788"
        ),
        // V=2 FMT=4 | PT=206 | length 4 | sender | media 0 | FCI: SSRC, seq nr 9, reserved 0.
        Case(
            name: "FIR",
            packet: .fullIntraRequest(
                FullIntraRequest(senderSSRC: 0x11223344, entries: [.init(ssrc: 0x55667788, sequenceNumber: 9)])
            ),
            bytes: "84ce0004 11223344 00000000 55667788 09000000"
        ),
    ]

    @Test(arguments: cases)
    func writesAndParsesTheRFCBytes(_ c: Case) throws {
        var out = [UInt8](repeating: 0, count: 128)
        let length = try out.withUnsafeMutableBytes { try RTCPPacket.writeCompound([c.packet], into: $0) }
        #expect(Array(out[..<length]).hex == [UInt8](hex: c.bytes).hex)
        let parsed = try [UInt8](hex: c.bytes).withUnsafeBytes { try RTCPPacket.parseCompound($0) }
        #expect(parsed.count == 1)
        if case .nack(let expected) = c.packet, case .nack(let nack) = parsed.first {
            #expect(nack.senderSSRC == expected.senderSSRC && nack.mediaSSRC == expected.mediaSSRC)
            #expect(Set(nack.lost) == Set(expected.lost))
        } else {
            #expect(parsed == [c.packet])
        }
    }
}
