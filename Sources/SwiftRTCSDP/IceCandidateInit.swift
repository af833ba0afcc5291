/// One trickled ICE candidate (W3C `RTCIceCandidateInit`): the `candidate:` attribute value and
/// the media section it belongs to. With BUNDLE every candidate belongs to the first section.
///
/// The one trickle form of a candidate: `PeerConnection` gives and takes it, and signaling
/// carries it as it is (`{"candidate", "sdpMid"?, "sdpMLineIndex"?}`); ``IceCandidate`` is
/// the same line parsed.
public struct IceCandidateInit: Sendable, Hashable, Codable {
    /// `candidate:...` as in SDP, without `a=`; empty means end of candidates.
    public var candidate: String
    /// The section's mid.
    public var sdpMid: String?
    /// The section's index.
    public var sdpMLineIndex: Int?

    /// Creates a candidate.
    public init(candidate: String, sdpMid: String? = nil, sdpMLineIndex: Int? = nil) {
        self.candidate = candidate
        self.sdpMid = sdpMid
        self.sdpMLineIndex = sdpMLineIndex
    }

    /// Whether this is the end-of-candidates marker.
    public var isEndOfCandidates: Bool { candidate.isEmpty }
}
