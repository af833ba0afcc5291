/// One trickled ICE candidate (W3C `RTCIceCandidateInit`): the `candidate:` attribute value,
/// the media section it belongs to, and the ICE generation (the `ice-ufrag` of the
/// description it goes with). With BUNDLE every candidate belongs to the first section.
///
/// The one trickle form of a candidate: `PeerConnection` gives and takes it, and signaling
/// carries it as it is (`{"candidate", "sdpMid"?, "sdpMLineIndex"?, "usernameFragment"?}`);
/// ``IceCandidate`` is the same line parsed. An empty `candidate` is the end-of-candidates
/// marker of its generation (RFC 8838 §4.5, RFC 8840 `a=end-of-candidates`).
public struct IceCandidateInit: Sendable, Hashable, Codable {
    /// `candidate:...` as in SDP, without `a=`; empty means end of candidates.
    public var candidate: String
    /// The section's mid.
    public var sdpMid: String?
    /// The section's index.
    public var sdpMLineIndex: Int?
    /// The ICE username fragment of the sender's description this candidate belongs to: after
    /// an ICE restart, candidates of an earlier generation are told apart by it and ignored.
    /// Nil: the current generation.
    public var usernameFragment: String?

    /// Creates a candidate.
    public init(
        candidate: String,
        sdpMid: String? = nil,
        sdpMLineIndex: Int? = nil,
        usernameFragment: String? = nil
    ) {
        self.candidate = candidate
        self.sdpMid = sdpMid
        self.sdpMLineIndex = sdpMLineIndex
        self.usernameFragment = usernameFragment
    }

    /// Whether this is the end-of-candidates marker.
    public var isEndOfCandidates: Bool { candidate.isEmpty }
}
