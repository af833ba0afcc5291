import RTPFixtureSupport
import SwiftRTCCore
import Testing

@testable import SwiftRTCRTP
@testable import SwiftRTCReceive

/// Issue 17: a peer's NACKs cannot make a sender resend more than a budget per second (also
/// before the round-trip time is known), nor its whole history for one NACK; a NACK's list
/// is bounded when it is read.
@Suite struct NackResponderBudgetTests {
    static let payload = [UInt8](repeating: 0x55, count: 1000)

    static func responder(sent sequences: ClosedRange<UInt16>, capacity: Int = 512) throws -> NackResponder {
        let responder = NackResponder(rtx: .init(payloadType: 97, ssrc: 0xBB), capacity: capacity)
        for sequence in sequences {
            let packet = try writeRTP(RTPHeader(payloadType: 96, sequenceNumber: sequence, timestamp: 3000, ssrc: 0xAA))
            { w in
                try payload.withUnsafeBytes { try w.appendPayload($0) }
            }
            packet.withUnsafeBytes { responder.store($0, at: 0) }
        }
        return responder
    }

    /// Packets and bytes sent for one NACK.
    static func respond(
        _ responder: NackResponder,
        _ lost: [UInt16],
        now: Double,
        rtt: Double? = nil,
        bitrate: Int = RemoteInputLimits.minResendBitrate
    ) -> (packets: Int, bytes: Int) {
        var sent = (packets: 0, bytes: 0)
        responder.respond(to: lost, now: now, roundTripTime: rtt, bitrate: bitrate) { _, length in
            sent.packets += 1
            sent.bytes += length
            return true
        }
        return sent
    }

    @Test func oneNackNeverResendsTheWholeHistory() throws {
        let responder = try Self.responder(sent: 0...511)
        let sent = Self.respond(responder, Array(0...511), now: 1, bitrate: 100_000_000)
        #expect(sent.packets == RemoteInputLimits.maxResendsPerNack)
        #expect(responder.refused == 512 - RemoteInputLimits.maxResendsPerNack)
    }

    @Test func aPacketListedTwiceInOneNackGoesOutOnce() throws {
        let responder = try Self.responder(sent: 0...20)
        // What PID 5 with BLP 0xFFFF, PID 6 with BLP 0xFFFF ... would say: 5 to 21, 6 to 22, ...
        let lost: [UInt16] = (5...10).flatMap { (pid: Int) -> [UInt16] in
            (0...16).map { (bit: Int) -> UInt16 in UInt16(pid + bit) }
        }.filter { $0 <= 20 }
        let sent = Self.respond(responder, lost, now: 1)
        #expect(sent.packets == 16)
    }

    /// A NACK storm before the RTT is known: the same packets asked for every millisecond
    /// for two seconds. The old responder resent all of them every time (40 000 packets);
    /// now the bytes stay within the budget (its one-second depth plus two seconds of rate).
    @Test(arguments: [RemoteInputLimits.minResendBitrate, 2_000_000])
    func aNackStormStaysWithinTheBudget(bitrate: Int) throws {
        let responder = try Self.responder(sent: 100...119)
        var total = (packets: 0, bytes: 0)
        for tick in 0..<2000 {
            let sent = Self.respond(responder, Array(100...119), now: 1 + Double(tick) / 1000, bitrate: bitrate)
            total.packets += sent.packets
            total.bytes += sent.bytes
        }
        let budget = Double(bitrate) / 8 * (RemoteInputLimits.resendBudgetWindow + 2)
        #expect(Double(total.bytes) <= budget + 1100, "\(total.bytes) bytes in 2 s, budget \(budget)")
        #expect(total.packets >= 20, "the first request is answered in full")
        #expect(responder.refused > 0)
    }

    /// Honest use: a lost burst asked for once is resent in full, and again a round trip later.
    @Test func anHonestNackIsAnsweredInFull() throws {
        let responder = try Self.responder(sent: 0...99)
        #expect(Self.respond(responder, Array(10...60), now: 1, bitrate: 2_000_000).packets == 51)
        #expect(Self.respond(responder, Array(10...60), now: 1.02, rtt: 0.05, bitrate: 2_000_000).packets == 0)
        #expect(Self.respond(responder, Array(10...60), now: 1.06, rtt: 0.05, bitrate: 2_000_000).packets == 51)
        #expect(responder.refused == 0)
    }

    /// A NACK packet of 300 PID+BLP pairs with every bit set (5100 sequence numbers): reading
    /// keeps ``RemoteInputLimits/maxNackedSequenceNumbers`` of them.
    @Test func aNackIsReadUpToItsLimit() throws {
        var body = [UInt8](repeating: 0, count: 8 + 300 * 4)
        body.withUnsafeMutableBytes { b in
            b.put32(1, at: 0)
            b.put32(2, at: 4)
            for i in 0..<300 {
                b.put16(UInt16(i * 17), at: 8 + 4 * i)
                b.put16(0xFFFF, at: 10 + 4 * i)
            }
        }
        let nack = try body.withUnsafeBytes { try GenericNACK(count: 1, body: $0, offset: 0) }
        #expect(nack.lost.count == RemoteInputLimits.maxNackedSequenceNumbers)
        #expect(nack.lost.prefix(3) == [0, 1, 2])
    }
}
