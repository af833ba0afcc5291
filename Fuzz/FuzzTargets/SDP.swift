// libFuzzer entry point for the SDP parser, writer and JSEP (see Fuzz/README.md).
import SwiftRTCSDP

/// Feeds one input through the SDP parser, writer and JSEP: parse, and if that succeeds,
/// write, parse again (must succeed and give the same model) and answer it.
public func fuzzSDP(_ bytes: UnsafeRawBufferPointer) {
    guard let description = try? SessionDescription(parsing: bytes) else { return }
    guard let again = try? SessionDescription(parsing: description.sdp), again == description else {
        fatalError("written SDP does not parse back to the same model:\n\(description.sdp)")
    }
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
    if let answer = try? JSEP.createAnswer(to: description, transceivers: transceivers, local: local) {
        guard (try? SessionDescription(parsing: answer.sdp)) == answer else {
            fatalError("JSEP answer does not parse back:\n\(answer.sdp)")
        }
        _ = try? Negotiation(offer: description, answer: answer)
    }
}
