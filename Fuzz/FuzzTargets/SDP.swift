// libFuzzer entry point for the SDP parser, writer and JSEP (see Fuzz/README.md).
import SwiftRTCSDP

/// Feeds one input through the SDP parser, writer and JSEP: parse, and if that succeeds,
/// write, parse again (must succeed and give the same model) and answer it. The same bytes go
/// through the `application/trickle-ice-sdpfrag` reader of WHIP's `PATCH`es.
public func fuzzSDP(_ bytes: UnsafeRawBufferPointer) {
    checkTrickleFragment(bytes)
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

/// The bytes as a WHIP `PATCH` body (RFC 8840's trickle-ice-sdpfrag): when they read, the
/// fragment keeps to its limits and what it writes reads back the same.
func checkTrickleFragment(_ bytes: UnsafeRawBufferPointer) {
    guard let text = String(validating: bytes, as: UTF8.self), let fragment = try? TrickleICEFragment(parsing: text)
    else { return }
    guard fragment.candidates.count <= TrickleICEFragment.maxCandidates else {
        fatalError("a fragment of \(fragment.candidates.count) candidates was read")
    }
    guard (try? TrickleICEFragment(parsing: fragment.sdpfrag)) == fragment else {
        fatalError("a written fragment does not read back the same:\n\(fragment.sdpfrag)")
    }
}
