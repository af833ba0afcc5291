import Testing

@testable import SwiftRTCRTP
@testable import SwiftRTCReceive

/// The NACK unit with an injected clock: times are passed in, no waiting.
@Suite struct NackRequesterTests {
    func requester(
        _ arrivals: [UInt16],
        at now: Double = 0,
        maximumRetries: Int = 10,
        maximumTime: Double = 1
    ) -> NackRequester {
        var nack = NackRequester(senderSSRC: 7, maximumRetries: maximumRetries, maximumTime: maximumTime)
        for sequence in arrivals { nack.received(sequenceNumber: sequence, ssrc: 9, at: now) }
        return nack
    }

    /// The sequence numbers a poll asks for (nil: no NACK), outside `#expect` (it mutates).
    func poll(_ nack: inout NackRequester, _ now: Double) -> [UInt16]? {
        nack.poll(now: now)?.lost
    }

    func abandoned(_ nack: inout NackRequester) -> Bool { nack.takeAbandoned() }

    @Test func asksForHolesAtOnceThenOncePerRoundTrip() throws {
        var nack = requester([100, 101, 104])
        nack.roundTripTime = 0.05
        let request = nack.poll(now: 0)
        let first = try #require(request)
        #expect(first.senderSSRC == 7 && first.mediaSSRC == 9 && first.lost == [102, 103])
        // Within a round trip (+5 ms): nothing again.
        let p1 = poll(&nack, 0.03)
        #expect(p1 == nil)
        let p2 = poll(&nack, 0.054)
        #expect(p2 == nil)
        let p3 = poll(&nack, 0.056)
        #expect(p3 == [102, 103])
        // 103 arrives (repaired): only 102 is asked for from now on.
        nack.received(sequenceNumber: 103, ssrc: 9, at: 0.06)
        #expect(nack.recovered == 1)
        let p4 = poll(&nack, 0.12)
        #expect(p4 == [102])
        #expect(nack.nacksSent == 3 && nack.packetsRequested == 5)
    }

    /// Before an RTT is measured the default (100 ms) spaces retries; a tiny RTT is floored.
    @Test(arguments: [(nil, 0.105), (0.2, 0.205), (0.001, 0.02)] as [(Double?, Double)])
    func retryIntervalFollowsTheRoundTrip(rtt: Double?, interval: Double) {
        var nack = requester([1, 3], at: 10)
        nack.roundTripTime = rtt
        #expect(abs(nack.retryInterval - interval) < 1e-9)
        let p5 = poll(&nack, 10)
        #expect(p5 == [2])
        let p6 = poll(&nack, 10 + interval - 0.001)
        #expect(p6 == nil)
        let p7 = poll(&nack, 10 + interval + 0.001)
        #expect(p7 == [2])
    }

    @Test func givesUpAfterTheRetryLimitAndReportsIt() {
        var nack = requester([1, 3], maximumRetries: 3)
        nack.roundTripTime = 0.1
        var requests = 0
        var time = 0.0
        while time < 1 {
            if nack.poll(now: time) != nil { requests += 1 }
            time += 0.01
        }
        #expect(requests == 3)
        #expect(nack.abandoned == 1 && nack.missingCount == 0)
        let a12 = abandoned(&nack)
        #expect(a12)
        let again = abandoned(&nack)
        #expect(!again)  // reported once
    }

    @Test func givesUpAfterTheMaximumAge() {
        var nack = requester([1, 3], maximumRetries: 100, maximumTime: 0.5)
        nack.roundTripTime = 0.1
        let p8 = poll(&nack, 0.0)
        #expect(p8 == [2])
        let p9 = poll(&nack, 0.45)
        #expect(p9 == [2])
        let p10 = poll(&nack, 0.51)
        #expect(p10 == nil)
        #expect(nack.abandoned == 1)
        let a13 = abandoned(&nack)
        #expect(a13)
    }

    @Test func aNewSourceStartsOver() {
        var nack = requester([1, 5])
        nack.received(sequenceNumber: 40_000, ssrc: 10, at: 0)
        nack.received(sequenceNumber: 40_001, ssrc: 10, at: 0)
        #expect(nack.missingCount == 0)
        let p11 = poll(&nack, 0)
        #expect(p11 == nil)
        #expect(nack.mediaSSRC == 10)
    }
}
