/// One local transceiver as JSEP sees it: what the PeerConnection layer hands to
/// `JSEP.createOffer` and `JSEP.createAnswer`.
public struct LocalTransceiver: Sendable, Hashable {
    /// audio or video.
    public var kind: MediaKind
    /// What this side wants to do.
    public var direction: MediaDirection
    /// The mid, once negotiated (offers assign `"0"`, `"1"`... to transceivers without one;
    /// answers match transceivers without one to remote sections of their kind).
    public var mid: String?
    /// The MediaStream id written in `a=msid` (`-` for none).
    public var streamId: String
    /// The track id written in `a=msid`.
    public var trackId: String
    /// The SSRC this side sends with, when it sends.
    public var ssrc: UInt32?
    /// The SSRC of retransmissions (RTX), when it sends video with RTX.
    public var rtxSsrc: UInt32?
    /// Codecs and header extensions.
    public var capabilities: MediaCapabilities

    /// Creates a transceiver; capabilities default to `MediaCapabilities.defaults(for: kind)`.
    public init(kind: MediaKind, direction: MediaDirection = .sendrecv, mid: String? = nil,
                streamId: String, trackId: String, ssrc: UInt32? = nil, rtxSsrc: UInt32? = nil,
                capabilities: MediaCapabilities? = nil) {
        self.kind = kind
        self.direction = direction
        self.mid = mid
        self.streamId = streamId
        self.trackId = trackId
        self.ssrc = ssrc
        self.rtxSsrc = rtxSsrc
        self.capabilities = capabilities ?? .defaults(for: kind)
    }
}

/// The local transport and session facts JSEP writes into every description.
public struct LocalParameters: Sendable, Hashable {
    /// The ICE username fragment.
    public var iceUfrag: String
    /// The ICE password.
    public var icePwd: String
    /// The DTLS certificate fingerprints.
    public var fingerprints: [Fingerprint]
    /// The DTLS role taken when answering an `actpass` offer: `.active` (as browsers do) or
    /// `.passive`.
    public var answerSetup: DTLSSetup
    /// Candidates gathered so far (empty when trickling).
    public var candidates: [IceCandidate]
    /// Whether gathering is complete (`a=end-of-candidates`).
    public var endOfCandidates: Bool
    /// Whether this side is an ICE lite agent (`a=ice-lite`).
    public var iceLite: Bool
    /// The `o=` session id (JSEP: random, below 2^63).
    public var sessionId: UInt64
    /// The `o=` session version.
    public var sessionVersion: UInt64
    /// The RTCP CNAME written on `a=ssrc` lines.
    public var cname: String

    /// Creates local parameters.
    public init(iceUfrag: String, icePwd: String, fingerprints: [Fingerprint], answerSetup: DTLSSetup = .active,
                candidates: [IceCandidate] = [], endOfCandidates: Bool = false, iceLite: Bool = false,
                sessionId: UInt64, sessionVersion: UInt64 = 1, cname: String) {
        self.iceUfrag = iceUfrag
        self.icePwd = icePwd
        self.fingerprints = fingerprints
        self.answerSetup = answerSetup
        self.candidates = candidates
        self.endOfCandidates = endOfCandidates
        self.iceLite = iceLite
        self.sessionId = sessionId
        self.sessionVersion = sessionVersion
        self.cname = cname
    }
}
