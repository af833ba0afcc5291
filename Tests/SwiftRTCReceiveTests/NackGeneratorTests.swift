import Testing

@testable import SwiftRTCRTP
@testable import SwiftRTCReceive

@Suite struct NackGeneratorTests {
    @Test func requestsHolesOncePerIntervalUntilTheRetryLimit() {
        var nack = NackGenerator(maximumRetries: 3)
        for sequence: UInt16 in [65533, 65534, 1, 2, 5] { nack.received(sequence) }
        #expect(nack.sequenceNumbersToRequest(now: 0, retryInterval: 0.1) == [65535, 0, 3, 4])
        #expect(nack.sequenceNumbersToRequest(now: 0.05, retryInterval: 0.1) == [])
        nack.received(0)  // recovered by RTX
        #expect(nack.recovered == 1)
        #expect(nack.sequenceNumbersToRequest(now: 0.15, retryInterval: 0.1) == [65535, 3, 4])
        #expect(nack.sequenceNumbersToRequest(now: 0.3, retryInterval: 0.1) == [65535, 3, 4])
        #expect(nack.sequenceNumbersToRequest(now: 0.45, retryInterval: 0.1) == [])
        #expect(nack.abandoned == 3 && nack.missingCount == 0)
    }

    @Test func oldHolesAndHugeJumpsStayBounded() {
        var nack = NackGenerator(maximumAge: 100, maximumMissing: 50)
        nack.received(0)
        nack.received(10_000)
        #expect(nack.missingCount <= 50)
        nack.received(10_200)
        #expect(nack.missingCount <= 50)
        #expect(nack.sequenceNumbersToRequest(now: 0, retryInterval: 1).allSatisfy { $0 >= 10_100 && $0 < 10_200 })
    }

    @Test func requestsRoundTripThroughAGenericNACK() throws {
        var generator = NackGenerator()
        for sequence: UInt16 in [10, 12, 30, 31, 50] { generator.received(sequence) }
        let lost = generator.sequenceNumbersToRequest(now: 0, retryInterval: 0.1)
        let packet = RTCPPacket.nack(GenericNACK(senderSSRC: 1, mediaSSRC: 2, lost: lost))
        var out = [UInt8](repeating: 0, count: 100)
        let length = try out.withUnsafeMutableBytes { try packet.write(into: $0) }
        guard
            case let .nack(parsed) = try Array(out[..<length]).withUnsafeBytes({ try RTCPPacket.parseCompound($0) })
                .first
        else {
            Issue.record("not a NACK")
            return
        }
        #expect(parsed.lost == lost)
        #expect(lost.count == 1 + 17 + 18)
    }
}
