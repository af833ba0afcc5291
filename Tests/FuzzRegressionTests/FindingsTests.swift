import Foundation
import SwiftRTCSDP
import Testing

/// What each fuzzer finding broke, checked on its regression input where the fix is
/// observable (every input also replays through its body in ``FuzzReplayTests``).
@Suite struct FindingsTests {
    static func regression(_ target: String, _ name: String) throws -> Data {
        try Data(contentsOf: FuzzReplayTests.fuzzFolder.appendingPathComponent(target).appendingPathComponent("regressions").appendingPathComponent(name))
    }

    /// SDPFuzzer: an offer whose m=video line lists payload type 124 twice got an answer
    /// listing (and mapping) it twice, which does not parse back as the same description.
    @Test func answerListsEachOfferedPayloadTypeOnce() throws {
        let data = try Self.regression("SDPFuzzer", "jsep-answer-repeats-a-payload-type-the-offer-lists-twice.sdp")
        let offer = try SessionDescription(parsing: String(decoding: data, as: UTF8.self))
        #expect(offer.media[1].formats.filter { $0 == "124" }.count == 2)
        let local = LocalParameters(iceUfrag: "fuzz", icePwd: "fuzzfuzzfuzzfuzzfuzzfuzz",
                                    fingerprints: [Fingerprint(hashFunction: "sha-256", bytes: Array(repeating: 0xAB, count: 32))],
                                    sessionId: 1, cname: "fuzz")
        let transceivers = [LocalTransceiver(kind: .audio, streamId: "s", trackId: "a", ssrc: 1),
                            LocalTransceiver(kind: .video, streamId: "s", trackId: "v", ssrc: 2, rtxSsrc: 3)]
        let answer = try JSEP.createAnswer(to: offer, transceivers: transceivers, local: local)
        for section in answer.media {
            #expect(Set(section.formats).count == section.formats.count, "\(section.formats)")
        }
        #expect(try SessionDescription(parsing: answer.sdp) == answer)
    }
}
