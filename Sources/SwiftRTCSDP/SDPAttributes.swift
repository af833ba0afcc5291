/// The `a=` lines of a session or of one media section, typed, plus the attributes SwiftRTC
/// does not model, kept in order so they are written back (RFC 8866 §5.13).
///
/// The same set serves both levels because JSEP lets several attributes stand at either
/// (`a=fingerprint`, `a=setup`, `a=ice-ufrag`, `a=ice-pwd`, `a=ice-options`, a direction,
/// `a=extmap`); `SessionDescription.resolved(_:)` applies the inheritance.
public struct SDPAttributes: Sendable, Hashable, Codable {
    /// `a=group:<semantics> <mid>...` (RFC 5888), e.g. BUNDLE (RFC 8843). Session level.
    public var groups: [SDPGroup] = []
    /// `a=msid-semantic:` (`WMS` and its stream ids, or `*`). Session level.
    public var msidSemantic: MsidSemantic?
    /// `a=ice-lite` (RFC 8839 §5.3).
    public var iceLite = false
    /// `a=ice-ufrag`.
    public var iceUfrag: String?
    /// `a=ice-pwd`.
    public var icePwd: String?
    /// `a=ice-options` tokens (`trickle`, `ice2`, `renomination`).
    public var iceOptions: [String] = []
    /// `a=fingerprint` lines, any hash function.
    public var fingerprints: [Fingerprint] = []
    /// `a=setup`.
    public var setup: DTLSSetup?
    /// `a=mid` (RFC 5888).
    public var mid: String?
    /// `a=bundle-only` (RFC 8843 §6).
    public var bundleOnly = false
    /// `a=extmap-allow-mixed` (RFC 8285 §6).
    public var extmapAllowMixed = false
    /// `a=extmap` header extensions.
    public var extensions: [ExtMap] = []
    /// `a=sendrecv`, `a=sendonly`, `a=recvonly` or `a=inactive`.
    public var direction: MediaDirection?
    /// `a=msid:<stream id> [<track id>]` lines (RFC 8830).
    public var msids: [Msid] = []
    /// `a=rtcp:<port> [<nettype> <addrtype> <address>]` (RFC 3605).
    public var rtcp: RtcpAddress?
    /// `a=rtcp-mux` (RFC 5761).
    public var rtcpMux = false
    /// `a=rtcp-mux-only` (RFC 8858).
    public var rtcpMuxOnly = false
    /// `a=rtcp-rsize` (RFC 5506).
    public var rtcpReducedSize = false
    /// The payload types' `a=rtpmap`, `a=fmtp` and `a=rtcp-fb` lines, grouped per payload
    /// type, in the order of the m= line's formats.
    public var codecs: [RtpCodec] = []
    /// `a=rtcp-fb:*` entries, which apply to every payload type.
    public var wildcardFeedback: [RtcpFeedback] = []
    /// `a=ssrc-group` lines.
    public var ssrcGroups: [SsrcGroup] = []
    /// `a=ssrc` lines, in order.
    public var ssrcs: [SsrcAttribute] = []
    /// `a=rid` lines (RFC 8851).
    public var rids: [Rid] = []
    /// `a=simulcast` (RFC 8853).
    public var simulcast: Simulcast?
    /// `a=candidate` lines.
    public var candidates: [IceCandidate] = []
    /// `a=end-of-candidates` (RFC 8840).
    public var endOfCandidates = false
    /// `a=sctp-port` (RFC 8841).
    public var sctpPort: UInt16?
    /// `a=max-message-size` (RFC 8841).
    public var maxMessageSize: UInt64?
    /// `a=sctpmap:<port> <protocol> [<streams>]` (draft-ietf-mmusic-sctp-sdp-05, legacy).
    public var sctpMap: SctpMap?
    /// Every other attribute, in the order written.
    public var other: [SDPAttribute] = []

    /// An empty set.
    public init() {}

    /// The codec with this payload type.
    public func codec(_ payloadType: UInt8) -> RtpCodec? {
        codecs.first { $0.payloadType == payloadType }
    }

    /// The SSRCs named by `a=ssrc` lines, in first-seen order.
    public var ssrcNumbers: [UInt32] {
        var seen: [UInt32] = []
        for line in ssrcs where !seen.contains(line.ssrc) { seen.append(line.ssrc) }
        return seen
    }
}
