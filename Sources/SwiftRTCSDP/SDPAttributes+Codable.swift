// JSON form of `SDPAttributes`: attributes that are absent (nil, empty lists, false flags) are
// left out, so `callbot sdp check --json` shows what the description says and nothing else.
extension SDPAttributes {
    private enum CodingKeys: String, CodingKey {
        case groups, msidSemantic, iceLite, iceUfrag, icePwd, iceOptions, fingerprints, setup, mid, bundleOnly
        case extmapAllowMixed, extensions, direction, msids, rtcp, rtcpMux, rtcpMuxOnly, rtcpReducedSize, codecs
        case wildcardFeedback, ssrcGroups, ssrcs, rids, simulcast, candidates, endOfCandidates, sctpPort
        case maxMessageSize, sctpMap, other
    }

    /// Encodes the attributes that are present.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        func list<T: Encodable>(_ value: [T], _ key: CodingKeys) throws {
            if !value.isEmpty { try c.encode(value, forKey: key) }
        }
        func flag(_ value: Bool, _ key: CodingKeys) throws { if value { try c.encode(value, forKey: key) } }
        try list(groups, .groups)
        try c.encodeIfPresent(msidSemantic, forKey: .msidSemantic)
        try flag(iceLite, .iceLite)
        try c.encodeIfPresent(iceUfrag, forKey: .iceUfrag)
        try c.encodeIfPresent(icePwd, forKey: .icePwd)
        try list(iceOptions, .iceOptions)
        try list(fingerprints, .fingerprints)
        try c.encodeIfPresent(setup, forKey: .setup)
        try c.encodeIfPresent(mid, forKey: .mid)
        try flag(bundleOnly, .bundleOnly)
        try flag(extmapAllowMixed, .extmapAllowMixed)
        try list(extensions, .extensions)
        try c.encodeIfPresent(direction, forKey: .direction)
        try list(msids, .msids)
        try c.encodeIfPresent(rtcp, forKey: .rtcp)
        try flag(rtcpMux, .rtcpMux)
        try flag(rtcpMuxOnly, .rtcpMuxOnly)
        try flag(rtcpReducedSize, .rtcpReducedSize)
        try list(codecs, .codecs)
        try list(wildcardFeedback, .wildcardFeedback)
        try list(ssrcGroups, .ssrcGroups)
        try list(ssrcs, .ssrcs)
        try list(rids, .rids)
        try c.encodeIfPresent(simulcast, forKey: .simulcast)
        try list(candidates, .candidates)
        try flag(endOfCandidates, .endOfCandidates)
        try c.encodeIfPresent(sctpPort, forKey: .sctpPort)
        try c.encodeIfPresent(maxMessageSize, forKey: .maxMessageSize)
        try c.encodeIfPresent(sctpMap, forKey: .sctpMap)
        try list(other, .other)
    }

    /// Decodes attributes, taking absent ones as nil, empty or false.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func list<T: Decodable>(_ key: CodingKeys) throws -> [T] { try c.decodeIfPresent([T].self, forKey: key) ?? [] }
        func flag(_ key: CodingKeys) throws -> Bool { try c.decodeIfPresent(Bool.self, forKey: key) ?? false }
        self.init()
        groups = try list(.groups)
        msidSemantic = try c.decodeIfPresent(MsidSemantic.self, forKey: .msidSemantic)
        iceLite = try flag(.iceLite)
        iceUfrag = try c.decodeIfPresent(String.self, forKey: .iceUfrag)
        icePwd = try c.decodeIfPresent(String.self, forKey: .icePwd)
        iceOptions = try list(.iceOptions)
        fingerprints = try list(.fingerprints)
        setup = try c.decodeIfPresent(DTLSSetup.self, forKey: .setup)
        mid = try c.decodeIfPresent(String.self, forKey: .mid)
        bundleOnly = try flag(.bundleOnly)
        extmapAllowMixed = try flag(.extmapAllowMixed)
        extensions = try list(.extensions)
        direction = try c.decodeIfPresent(MediaDirection.self, forKey: .direction)
        msids = try list(.msids)
        rtcp = try c.decodeIfPresent(RtcpAddress.self, forKey: .rtcp)
        rtcpMux = try flag(.rtcpMux)
        rtcpMuxOnly = try flag(.rtcpMuxOnly)
        rtcpReducedSize = try flag(.rtcpReducedSize)
        codecs = try list(.codecs)
        wildcardFeedback = try list(.wildcardFeedback)
        ssrcGroups = try list(.ssrcGroups)
        ssrcs = try list(.ssrcs)
        rids = try list(.rids)
        simulcast = try c.decodeIfPresent(Simulcast.self, forKey: .simulcast)
        candidates = try list(.candidates)
        endOfCandidates = try flag(.endOfCandidates)
        sctpPort = try c.decodeIfPresent(UInt16.self, forKey: .sctpPort)
        maxMessageSize = try c.decodeIfPresent(UInt64.self, forKey: .maxMessageSize)
        sctpMap = try c.decodeIfPresent(SctpMap.self, forKey: .sctpMap)
        other = try list(.other)
    }
}
