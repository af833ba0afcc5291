import Foundation
import SwiftRTCSDP
import Testing

@testable import SwiftRTCMedia

/// What each fuzzer finding broke, checked on its regression input where the fix is
/// observable (every input also replays through its body in ``FuzzReplayTests``).
@Suite struct FindingsTests {
    static func regression(_ target: String, _ name: String) throws -> Data {
        try Data(
            contentsOf: FuzzReplayTests.fuzzFolder.appendingPathComponent(target).appendingPathComponent("regressions")
                .appendingPathComponent(name)
        )
    }

    /// SDPFuzzer: an offer whose m=video line lists payload type 124 twice got an answer
    /// listing (and mapping) it twice, which does not parse back as the same description.
    @Test func answerListsEachOfferedPayloadTypeOnce() throws {
        let data = try Self.regression("SDPFuzzer", "jsep-answer-repeats-a-payload-type-the-offer-lists-twice.sdp")
        let offer = try SessionDescription(parsing: String(decoding: data, as: UTF8.self))
        #expect(offer.media[1].formats.filter { $0 == "124" }.count == 2)
        let local = LocalParameters(
            iceUfrag: "fuzz",
            icePwd: "fuzzfuzzfuzzfuzzfuzzfuzz",
            fingerprints: [Fingerprint(hashFunction: "sha-256", bytes: Array(repeating: 0xAB, count: 32))],
            sessionId: 1,
            cname: "fuzz"
        )
        let transceivers = [
            LocalTransceiver(kind: .audio, streamId: "s", trackId: "a", ssrc: 1),
            LocalTransceiver(kind: .video, streamId: "s", trackId: "v", ssrc: 2, rtxSsrc: 3),
        ]
        let answer = try JSEP.createAnswer(to: offer, transceivers: transceivers, local: local)
        for section in answer.media {
            #expect(Set(section.formats).count == section.formats.count, "\(section.formats)")
        }
        #expect(try SessionDescription(parsing: answer.sdp) == answer)
    }

    /// FileReaderFuzzer: a Y4M file whose frame rate is `F1:999999999999999` trapped on an
    /// arithmetic overflow at its second frame (index × 90000 × denominator in 64 bits).
    @Test func y4mTimestampsOfAnyFrameRate() throws {
        let data = try Self.regression("FileReaderFuzzer", "y4m-frame-rate-denominator-overflows-the-timestamp")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-y4m-\(UUID().uuidString).y4m")
        try data.dropFirst().write(to: url)  // the first byte chose the reader
        defer { try? FileManager.default.removeItem(at: url) }
        var reader = try Y4MReader(path: url.path)
        var timestamps: [UInt64] = []
        while let frame = try reader.readFrame() { timestamps.append(frame.timestamp) }
        #expect(timestamps == [0, .max])
        #expect(Y4MReader.timestamp(frame: 1, rate: (30000, 1001)) == 3003)
        #expect(Y4MReader.timestamp(frame: 1_000_000, rate: (30, 1)) == 3_000_000_000)
    }
}
