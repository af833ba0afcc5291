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
    public init(
        iceUfrag: String,
        icePwd: String,
        fingerprints: [Fingerprint],
        answerSetup: DTLSSetup = .active,
        candidates: [IceCandidate] = [],
        endOfCandidates: Bool = false,
        iceLite: Bool = false,
        sessionId: UInt64,
        sessionVersion: UInt64 = 1,
        cname: String
    ) {
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
