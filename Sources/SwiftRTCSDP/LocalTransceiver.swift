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
    /// The rids of the simulcast encodings it sends (RFC 8853), highest resolution first;
    /// empty without simulcast. Offers list them in this order (`a=rid:<id> send`,
    /// `a=simulcast:send`), as SFUs such as Janus expect.
    public var simulcastRids: [String] = []
    /// Codecs and header extensions.
    public var capabilities: MediaCapabilities

    /// Creates a transceiver; capabilities default to `MediaCapabilities.defaults(for: kind)`.
    public init(
        kind: MediaKind,
        direction: MediaDirection = .sendrecv,
        mid: String? = nil,
        streamId: String,
        trackId: String,
        ssrc: UInt32? = nil,
        rtxSsrc: UInt32? = nil,
        capabilities: MediaCapabilities? = nil
    ) {
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
