import SwiftRTCPeer
import SwiftRTCSDP
import SwiftRTCSignaling

/// A WHIP or WHEP session's `PATCH`es (RFC 9725 §4.3) on a peer connection, for an endpoint
/// whose sessions are peer connections (``WHIPEndpointSession/addCandidates(_:)`` and
/// ``WHIPEndpointSession/restartICE(_:)`` in a line each), and the fragments a client sends.
extension PeerConnection {
    /// Takes a client's trickled candidates (the endpoint's side of a trickle `PATCH`); a
    /// candidate of another ICE generation, or that does not parse, is the client's fault
    /// (``WHIPOfferRejected``).
    public func addCandidates(_ fragment: TrickleICEFragment) async throws {
        let candidates = fragment.candidates + (fragment.endOfCandidates ? [""] : [])
        for candidate in candidates {
            do {
                try await addIceCandidate(
                    IceCandidateInit(
                        candidate: candidate,
                        sdpMid: fragment.mid,
                        usernameFragment: fragment.usernameFragment
                    )
                )
            } catch {
                guard case let .invalidCandidate(reason) = error else { throw error }
                throw WHIPOfferRejected(reason, kind: .unusable)
            }
        }
    }

    /// Restarts ICE as a client asked (the endpoint's side of an ICE restart `PATCH`): the
    /// client's offer again with its new credentials and candidates (JSEP's ICE restart offer),
    /// answered; returns this side's new credentials and every candidate it gathered for them
    /// (within `gatheringTimeout`).
    public func restartICE(
        answering fragment: TrickleICEFragment,
        gatheringTimeout: Duration = .seconds(10)
    ) async throws -> TrickleICEFragment {
        guard let ufrag = fragment.usernameFragment, let pwd = fragment.password else {
            throw WHIPOfferRejected("an ICE restart carries new credentials")
        }
        guard let current = remoteDescription, let previous = try? SessionDescription(parsing: current.sdp) else {
            throw WHIPOfferRejected("no negotiated session to restart", kind: .unusable)
        }
        var candidates: [IceCandidate] = []
        for line in fragment.candidates {
            do { candidates.append(try IceCandidate(sdpLine: line)) } catch {
                throw WHIPOfferRejected(error.description)
            }
        }
        let offer = JSEP.iceRestartOffer(
            previous: previous,
            iceUfrag: ufrag,
            icePwd: pwd,
            candidates: candidates,
            endOfCandidates: fragment.endOfCandidates
        )
        try await setRemoteDescription(SignalingDescription(type: .offer, sdp: offer.sdp))
        try await setLocalDescription(try await createAnswer())
        return try await gatheredFragment(within: gatheringTimeout)
    }

    /// This side's credentials and candidates in its local description once gathering is
    /// complete (or `timeout` passed): what an ICE restart `PATCH` or its answer carries.
    func gatheredFragment(within timeout: Duration) async throws(PeerConnectionError) -> TrickleICEFragment {
        let complete = await gatheringComplete(within: timeout)
        guard let local = localDescription, let parsed = try? SessionDescription(parsing: local.sdp),
            let section = parsed.media.first(where: { $0.port != 0 || $0.bundleOnly }).map(parsed.resolved)
        else { throw .invalidState(operation: "gatheredFragment", state: signalingState) }
        return TrickleICEFragment(
            usernameFragment: section.iceUfrag,
            password: section.icePwd,
            mid: section.mid,
            candidates: section.candidates.map(\.sdpLine),
            endOfCandidates: complete
        )
    }
}
