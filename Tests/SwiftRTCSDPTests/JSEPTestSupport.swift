import Foundation
import SwiftRTCSDP

/// Local parameters and transceivers the JSEP tests offer and answer with.
enum TestPeer {
    static let fingerprint = Fingerprint(hashFunction: "sha-256", bytes: (0..<32).map { UInt8($0 &* 7 &+ 3) })

    static func local(
        candidates: [IceCandidate] = [],
        answerSetup: DTLSSetup = .active,
        ufrag: String = "SwRt",
        pwd: String = "swiftrtcicepassword00001"
    ) -> LocalParameters {
        LocalParameters(
            iceUfrag: ufrag,
            icePwd: pwd,
            fingerprints: [fingerprint],
            answerSetup: answerSetup,
            candidates: candidates,
            endOfCandidates: !candidates.isEmpty,
            sessionId: 4_611_686_018_427_387_904,
            sessionVersion: 2,
            cname: "swiftrtc-test"
        )
    }

    static let hostCandidate = IceCandidate(
        foundation: "1",
        component: 1,
        transport: "udp",
        priority: 2_130_706_431,
        address: "127.0.0.1",
        port: 50000,
        type: .host,
        generation: 0
    )

    static var transceivers: [LocalTransceiver] {
        [
            LocalTransceiver(kind: .audio, streamId: "stream0", trackId: "audio0", ssrc: 1111),
            LocalTransceiver(kind: .video, streamId: "stream0", trackId: "video0", ssrc: 2222, rtxSsrc: 3333),
        ]
    }

    static var offer: SessionDescription {
        JSEP.createOffer(transceivers: transceivers, local: local(candidates: [hostCandidate]))
    }
}
