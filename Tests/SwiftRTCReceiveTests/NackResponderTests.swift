import RTPFixtureSupport
import Testing

@testable import SwiftRTCRTP
@testable import SwiftRTCReceive

/// The send side of NACK: RTX (RFC 4588) or the original packet again, at most once per RTT.
@Suite struct NackResponderTests {
    func sent(_ responder: NackResponder, sequences: ClosedRange<UInt16>) throws {
        for sequence in sequences {
            let packet = try writeRTP(RTPHeader(payloadType: 96, sequenceNumber: sequence, timestamp: 3000, ssrc: 0xAA))
            { w in
                try [UInt8]([0x10, UInt8(truncatingIfNeeded: sequence)]).withUnsafeBytes { try w.appendPayload($0) }
            }
            packet.withUnsafeBytes { responder.store($0, at: 0) }
        }
    }

    func respond(_ responder: NackResponder, _ lost: [UInt16], now: Double = 1, rtt: Double? = nil) throws -> [[UInt8]]
    {
        var out: [[UInt8]] = []
        responder.respond(to: lost, now: now, roundTripTime: rtt) { buffer, length in
            out.append(Array(buffer[..<length]))
            return true
        }
        return out
    }

    @Test func answersWithRTXOnItsOwnSequenceNumbers() throws {
        let responder = NackResponder(rtx: .init(payloadType: 97, ssrc: 0xBB), capacity: 16)
        try sent(responder, sequences: 100...110)
        let first = responder.history.rtxSequenceNumber
        let packets = try respond(responder, [103, 105, 200])
        #expect(packets.count == 2 && responder.unavailable == 1)
        for (i, (bytes, osn)) in zip(packets, [UInt16(103), 105]).enumerated() {
            try bytes.withRTP { p in
                #expect(
                    p.payloadType == 97 && p.ssrc == 0xBB && p.sequenceNumber == first &+ UInt16(i)
                        && p.timestamp == 3000
                )
                #expect(Array(p.payload) == [UInt8(osn >> 8), UInt8(osn & 0xFF), 0x10, UInt8(osn & 0xFF)])
            }
        }
        #expect(responder.retransmittedPackets == 2 && responder.retransmittedBytes == 8)
    }

    @Test func answersPlainPeersWithTheOriginalPacket() throws {
        let responder = NackResponder(rtx: nil, capacity: 16)
        try sent(responder, sequences: 65530...65535)
        try sent(responder, sequences: 0...3)
        let packets = try respond(responder, [65535, 2])
        #expect(packets.count == 2)
        try packets[0].withRTP { #expect($0.payloadType == 96 && $0.ssrc == 0xAA && $0.sequenceNumber == 65535) }
        try packets[1].withRTP { #expect($0.sequenceNumber == 2 && Array($0.payload) == [0x10, 2]) }
        // What the history keeps is untouched by the send (which protects in place).
        #expect(responder.history.packet(2).map { Array($0.payload) } == [0x10, 2])
    }

    @Test func resendsAPacketAtMostOncePerRoundTrip() throws {
        let responder = NackResponder(rtx: nil, capacity: 16)
        try sent(responder, sequences: 1...5)
        #expect(try respond(responder, [3], now: 1, rtt: 0.1).count == 1)
        #expect(try respond(responder, [3], now: 1.05, rtt: 0.1).count == 0)
        #expect(try respond(responder, [3], now: 1.11, rtt: 0.1).count == 1)
        #expect(responder.retransmittedPackets == 2)
    }

    @Test func forgetsWhatTheHistoryNoLongerHolds() throws {
        let responder = NackResponder(rtx: nil, capacity: 4)
        try sent(responder, sequences: 1...10)
        #expect(try respond(responder, [2, 6, 7, 10]).count == 2)  // 7...10 kept
        #expect(responder.unavailable == 2)
    }
}
