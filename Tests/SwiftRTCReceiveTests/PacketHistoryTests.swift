import RTPFixtureSupport
import Testing

@testable import SwiftRTCRTP
@testable import SwiftRTCReceive

@Suite struct PacketHistoryTests {
    @Test func answersNACKsWithRTXWhileThePacketIsKept() throws {
        let history = PacketHistory(capacity: 4, rtxSequenceNumber: 100)
        var originals: [[UInt8]] = []
        for sequence: UInt16 in 65534...65535 {
            originals.append(
                try writeRTP(RTPHeader(payloadType: 96, sequenceNumber: sequence, timestamp: 1, ssrc: 9)) { w in
                    try [UInt8]([1, 2, UInt8(sequence & 0xFF)]).withUnsafeBytes { try w.appendPayload($0) }
                }
            )
        }
        for sequence: UInt16 in 0...3 {
            originals.append(
                try writeRTP(RTPHeader(payloadType: 96, sequenceNumber: sequence, timestamp: 1, ssrc: 9)) { _ in }
            )
        }
        for packet in originals { try packet.withUnsafeBytes { try history.store($0) } }
        #expect(history.packet(65535) == nil, "overwritten by newer packets")
        #expect(history.packet(2)?.sequenceNumber == 2)
        var out = [UInt8](repeating: 0, count: 100)
        let length = try #require(
            try out.withUnsafeMutableBytes {
                try history.retransmission(of: 3, rtxPayloadType: 97, rtxSSRC: 10, into: $0)
            }
        )
        try Array(out[..<length]).withRTP { (p: RTPPacket) in
            #expect(p.sequenceNumber == 100 && p.ssrc == 10 && Array(p.payload) == [0, 3])
        }
        #expect(history.rtxSequenceNumber == 101)
        #expect(
            try out.withUnsafeMutableBytes {
                try history.retransmission(of: 65534, rtxPayloadType: 97, rtxSSRC: 10, into: $0)
            } == nil
        )
    }
}
