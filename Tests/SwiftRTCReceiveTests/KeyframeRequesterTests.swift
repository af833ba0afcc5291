import Testing

@testable import SwiftRTCRTP
@testable import SwiftRTCReceive

@Suite struct KeyframeRequesterTests {
    @Test(arguments: [(true, true, KeyframeRequester.Method.pli), (true, false, .pli), (false, true, .fir)])
    func picksWhatWasNegotiated(pli: Bool, fir: Bool, method: KeyframeRequester.Method) {
        #expect(KeyframeRequester(senderSSRC: 1, pli: pli, fir: fir).method == method)
    }

    @Test func nothingNegotiatedAsksNothing() {
        var requester = KeyframeRequester(senderSSRC: 1, pli: false, fir: false)
        let request = requester.request(mediaSSRC: 2, now: 0, roundTripTime: nil)
        #expect(request == nil)
    }

    /// At most one request per max(300 ms, RTT + 100 ms).
    @Test(arguments: [(nil, 0.3), (0.05, 0.3), (0.5, 0.6)] as [(Double?, Double)])
    func rateLimited(rtt: Double?, interval: Double) {
        var requester = KeyframeRequester(senderSSRC: 1, pli: true, fir: false)
        let first = requester.request(mediaSSRC: 2, now: 5, roundTripTime: rtt)
        let tooSoon = requester.request(mediaSSRC: 2, now: 5 + interval - 0.01, roundTripTime: rtt)
        let later = requester.request(mediaSSRC: 2, now: 5 + interval + 0.01, roundTripTime: rtt)
        #expect(first == .pictureLossIndication(PictureLossIndication(senderSSRC: 1, mediaSSRC: 2)))
        #expect(tooSoon == nil && later != nil)
        #expect(requester.pliSent == 2 && requester.firSent == 0)
    }

    /// FIR: each new request carries the next command sequence number (RFC 5104 §4.3.1.1).
    @Test func firSequenceNumbersCount() {
        var requester = KeyframeRequester(senderSSRC: 1, pli: false, fir: true)
        let first = requester.request(mediaSSRC: 2, now: 0, roundTripTime: nil)
        let second = requester.request(mediaSSRC: 2, now: 1, roundTripTime: nil)
        #expect(
            first == .fullIntraRequest(FullIntraRequest(senderSSRC: 1, entries: [.init(ssrc: 2, sequenceNumber: 1)]))
        )
        #expect(
            second == .fullIntraRequest(FullIntraRequest(senderSSRC: 1, entries: [.init(ssrc: 2, sequenceNumber: 2)]))
        )
        #expect(requester.firSent == 2)
    }
}
