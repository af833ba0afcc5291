/// JSEP offer/answer (RFC 8829, RFC 3264) over `SessionDescription`s: offers from local
/// transceivers, answers to remote offers, ICE restart offers.
public enum JSEP {
    /// The proto SwiftRTC offers for media: DTLS-SRTP over ICE with RTCP feedback.
    public static let mediaProto = "UDP/TLS/RTP/SAVPF"

    /// Creates an offer (JSEP §5.2.1): one BUNDLEd section per transceiver with its codecs,
    /// header extensions, direction, msid and SSRCs (with an RTX FID group when it sends with
    /// RTX), `a=setup:actpass`, rtcp-mux, rtcp-rsize, trickle ICE and the local candidates.
    /// `reservedMids` are mids new transceivers must not take (a data section's).
    public static func createOffer(
        transceivers: [LocalTransceiver],
        local: LocalParameters,
        reservedMids: Set<String> = []
    ) -> SessionDescription {
        var offer = session(local: local)
        // Transceivers without a mid get the lowest free number.
        var taken = Set(transceivers.compactMap(\.mid)).union(reservedMids)
        var next = 0
        for t in transceivers {
            var mid = t.mid ?? ""
            if t.mid == nil {
                while taken.contains(String(next)) { next += 1 }
                mid = String(next)
                taken.insert(mid)
            }
            var m = MediaDescription(
                kind: t.kind,
                port: 9,
                proto: mediaProto,
                formats: t.capabilities.codecs.map { String($0.payloadType) }
            )
            m.mid = mid
            addTransport(to: &m, local: local, setup: .actpass)
            m.extensions = t.capabilities.extensions
            m.direction = t.direction
            m.rtcpMux = true
            m.rtcpReducedSize = true
            m.codecs = t.capabilities.codecs
            if t.direction.sends {
                addSources(to: &m, transceiver: t, local: local)
                addSimulcast(to: &m, rids: t.simulcastRids)
            }
            offer.media.append(m)
        }
        offer.groups = [SDPGroup(semantics: "BUNDLE", mids: offer.media.compactMap(\.mid))]
        offer.msidSemantic = MsidSemantic(semantic: "WMS", identifiers: streamIds(offer))
        return offer
    }

    /// Creates an answer (JSEP §5.3.1) to `offer`:
    /// - each offered audio/video section secured with DTLS-SRTP and rtcp-mux is matched to a
    ///   transceiver (by mid, else the first unused one of its kind; a section left without
    ///   one is answered `recvonly`-or-less with default capabilities, as browsers do);
    /// - codecs are the intersection, in the offer's order and keeping the offer's payload
    ///   types; RTX follows its `apt`; rtcp-fb is intersected; header extensions are the
    ///   supported ones with the offer's ids (directions reversed);
    /// - the direction is the RFC 3264 answer to the offered one;
    /// - offered simulcast (`a=rid ... send`, `a=simulcast:send`) is received;
    /// - sections SwiftRTC cannot take (data channels, other kinds, plain RTP, no common
    ///   codec, no rtcp-mux, port 0 without bundle-only) are rejected with port 0;
    /// - the first offered BUNDLE group is accepted with the accepted mids;
    /// - `a=setup` answers `actpass` with `local.answerSetup`, `active` with `passive` and
    ///   `passive` with `active`.
    public static func createAnswer(
        to offer: SessionDescription,
        transceivers: [LocalTransceiver],
        local: LocalParameters
    ) throws(JSEPError) -> SessionDescription {
        var answer = session(local: local)
        var unused = transceivers
        let offeredBundle = offer.bundleGroups.first ?? []
        var offeredMixed = offer.extmapAllowMixed

        for (index, section) in offer.media.enumerated() {
            let offered = offer.resolved(section)
            let mid = offered.mid ?? String(index)
            offeredMixed = offeredMixed || offered.extmapAllowMixed
            let supported =
                (offered.kind == .audio || offered.kind == .video)
                && offered.proto.uppercased().hasSuffix("SAVPF") && offered.rtcpMux
                && (offered.port != 0 || (offered.bundleOnly && offeredBundle.contains(mid)))
            guard supported else {
                answer.media.append(rejected(offered, local: local))
                continue
            }
            let transceiver = takeTransceiver(mid: mid, kind: offered.kind, from: &unused)
            let codecs = intersect(offered: offered, capabilities: transceiver.capabilities)
            guard !codecs.isEmpty else {
                answer.media.append(rejected(offered, local: local))
                continue
            }
            answer.media.append(
                try answerSection(to: offered, mid: mid, codecs: codecs, transceiver: transceiver, local: local)
            )
        }

        let accepted = Set(answer.media.filter { $0.port != 0 }.compactMap(\.mid))
        let bundle = offeredBundle.filter { accepted.contains($0) }
        if !bundle.isEmpty { answer.groups = [SDPGroup(semantics: "BUNDLE", mids: bundle)] }
        answer.extmapAllowMixed = offeredMixed
        answer.msidSemantic = MsidSemantic(semantic: "WMS", identifiers: streamIds(answer))
        return answer
    }

    /// The local transceiver for an offered section: the one with its mid, else the first
    /// unused one of its kind, else a new receive-only one.
    static func takeTransceiver(mid: String, kind: MediaKind, from unused: inout [LocalTransceiver]) -> LocalTransceiver
    {
        if let i = unused.firstIndex(where: { $0.mid == mid && $0.kind == kind })
            ?? unused.firstIndex(where: { $0.mid == nil && $0.kind == kind })
        {
            return unused.remove(at: i)
        }
        return LocalTransceiver(kind: kind, direction: .recvonly, mid: mid, streamId: "-", trackId: "-")
    }

    /// The answer to one offered audio or video section with `codecs` in common: transport
    /// (ICE, DTLS role), header extensions, direction, this side's sources, and the offered
    /// simulcast taken.
    static func answerSection(
        to offered: MediaDescription,
        mid: String,
        codecs: [RtpCodec],
        transceiver: LocalTransceiver,
        local: LocalParameters
    ) throws(JSEPError) -> MediaDescription {
        guard offered.iceUfrag != nil, offered.icePwd != nil else { throw .missingICECredentials(mid: mid) }
        guard !offered.fingerprints.isEmpty else { throw .missingFingerprint(mid: mid) }
        // An offer without a=setup is read as actpass (RFC 5763 §5 requires actpass).
        let offeredSetup = offered.setup ?? .actpass
        guard let setup = offeredSetup.answer(preferred: local.answerSetup) else {
            throw .invalidSetup(mid: mid, setup: offeredSetup.rawValue)
        }

        var m = MediaDescription(
            kind: offered.kind,
            port: 9,
            proto: offered.proto,
            formats: codecs.map { String($0.payloadType) }
        )
        // An answer carries a=mid only when the offer did (RFC 5888 §9.1).
        m.mid = offered.mid
        addTransport(to: &m, local: local, setup: setup)
        m.extensions = intersectExtensions(offered: offered, capabilities: transceiver.capabilities)
        let direction = (offered.direction ?? .sendrecv).answer(local: transceiver.direction)
        m.direction = direction
        m.rtcpMux = true
        m.rtcpReducedSize = offered.rtcpReducedSize
        m.codecs = codecs
        var sending = transceiver
        if !codecs.contains(where: { $0.encodingName == "rtx" }) { sending.rtxSsrc = nil }
        if direction.sends { addSources(to: &m, transceiver: sending, local: local) }
        if direction.receives { answerSimulcast(of: offered, in: &m) }
        return m
    }

    /// Takes the simulcast `offered` sends: its send rids as receive rids, `a=simulcast:recv`,
    /// and the rid header extensions it offered (reversed).
    static func answerSimulcast(of offered: MediaDescription, in m: inout MediaDescription) {
        guard let simulcast = offered.simulcast, !simulcast.send.isEmpty else { return }
        let offeredRids = Set(simulcast.send.flatMap { $0.map(\.rid) })
        m.rids = offered.rids.filter { $0.direction == .send && offeredRids.contains($0.id) }
            .map { Rid(id: $0.id, direction: .recv) }
        m.simulcast = Simulcast(recv: simulcast.send)
        let ridURIs = [ExtMap.URI.rtpStreamId, ExtMap.URI.repairedRtpStreamId]
        for ext in offered.extensions
        where ridURIs.contains(ext.uri) && !m.extensions.contains(where: { $0.uri == ext.uri }) {
            m.extensions.append(ExtMap(id: ext.id, direction: ext.direction?.reversed, uri: ext.uri))
        }
    }

    /// An ICE restart offer (JSEP §5.2.1, RFC 8839 §4.4.1.1.1): `previous` (this side's last
    /// offer) with new ICE credentials and candidates, the session version incremented, and
    /// everything else (mids, codecs, payload types, SSRCs, fingerprints) the same.
    public static func iceRestartOffer(
        previous: SessionDescription,
        iceUfrag: String,
        icePwd: String,
        candidates: [IceCandidate] = [],
        endOfCandidates: Bool = false
    ) -> SessionDescription {
        var offer = previous
        offer.origin.sessionVersion &+= 1
        if offer.iceUfrag != nil { offer.iceUfrag = iceUfrag }
        if offer.icePwd != nil { offer.icePwd = icePwd }
        for i in offer.media.indices where offer.media[i].port != 0 || offer.media[i].bundleOnly {
            if offer.media[i].iceUfrag != nil || offer.iceUfrag == nil { offer.media[i].iceUfrag = iceUfrag }
            if offer.media[i].icePwd != nil || offer.icePwd == nil { offer.media[i].icePwd = icePwd }
            offer.media[i].candidates = candidates
            offer.media[i].endOfCandidates = endOfCandidates
            offer.media[i].port = defaultCandidate(candidates)?.port ?? 9
            offer.media[i].connection = connection(for: defaultCandidate(candidates))
        }
        // A restart re-offers actpass even if the last negotiation fixed a role (JSEP §5.2.2).
        return offer
    }

    // MARK: Building blocks

    static func session(local: LocalParameters) -> SessionDescription {
        var s = SessionDescription(origin: Origin(sessionId: local.sessionId, sessionVersion: local.sessionVersion))
        s.iceLite = local.iceLite
        return s
    }

    /// The candidate whose address goes on the m= and c= lines (JSEP §5.2.1): the
    /// highest-priority UDP candidate of component 1, or none (port 9, 0.0.0.0).
    static func defaultCandidate(_ candidates: [IceCandidate]) -> IceCandidate? {
        candidates.filter { $0.component == 1 && !$0.isTCP && ($0.addressFamily == .ipv4 || $0.addressFamily == .ipv6) }
            .max { $0.priority < $1.priority }
    }

    static func connection(for candidate: IceCandidate?) -> ConnectionData {
        guard let candidate else { return ConnectionData() }
        return ConnectionData(addressType: candidate.addressFamily == .ipv6 ? "IP6" : "IP4", address: candidate.address)
    }

    static func addTransport(to m: inout MediaDescription, local: LocalParameters, setup: DTLSSetup) {
        let candidate = defaultCandidate(local.candidates)
        m.port = candidate?.port ?? 9
        m.connection = connection(for: candidate)
        m.candidates = local.candidates
        m.endOfCandidates = local.endOfCandidates
        m.iceUfrag = local.iceUfrag
        m.icePwd = local.icePwd
        m.iceOptions = ["trickle"]
        m.fingerprints = local.fingerprints
        m.setup = setup
    }

    static func addSources(to m: inout MediaDescription, transceiver t: LocalTransceiver, local: LocalParameters) {
        m.msids = [Msid(streamId: t.streamId, trackId: t.trackId)]
        // Simulcast encodings are told apart by their rid (RFC 8852), not by SSRCs listed here.
        guard let ssrc = t.ssrc, t.simulcastRids.isEmpty else { return }
        var sources = [ssrc]
        if let rtx = t.rtxSsrc, t.capabilities.codecs.contains(where: { $0.encodingName == "rtx" }) {
            sources.append(rtx)
            m.ssrcGroups = [SsrcGroup(semantics: "FID", ssrcs: sources)]
        }
        for source in sources {
            m.ssrcs.append(SsrcAttribute(ssrc: source, attribute: "cname", value: local.cname))
            m.ssrcs.append(SsrcAttribute(ssrc: source, attribute: "msid", value: "\(t.streamId) \(t.trackId)"))
        }
    }

    /// Offers sending `rids` as simulcast (RFC 8853 §5.1, RFC 8851 §4): a send rid each, the
    /// simulcast streams in that order, and the rtp-stream-id and repaired-rtp-stream-id
    /// header extensions (RFC 8852) that tell the encodings and their RTX apart, under ids
    /// the section does not use yet.
    static func addSimulcast(to m: inout MediaDescription, rids: [String]) {
        guard !rids.isEmpty else { return }
        m.rids = rids.map { Rid(id: $0, direction: .send) }
        m.simulcast = Simulcast(send: rids.map { [Simulcast.Stream(rid: $0)] })
        for uri in [ExtMap.URI.rtpStreamId, ExtMap.URI.repairedRtpStreamId]
        where !m.extensions.contains(where: { $0.uri == uri }) {
            let used = Set(m.extensions.map(\.id))
            guard let id = (UInt16(1)...14).first(where: { !used.contains($0) }) else { return }
            m.extensions.append(ExtMap(id: id, uri: uri))
        }
    }

    static func streamIds(_ description: SessionDescription) -> [String] {
        var ids: [String] = []
        for m in description.media {
            for msid in m.msids where msid.streamId != "-" && !ids.contains(msid.streamId) { ids.append(msid.streamId) }
        }
        return ids
    }

    /// The answer's codecs: offered ones this side supports, in offered order with offered
    /// payload types, this side's fmtp (the offer's for RTX, with the offered apt), and the
    /// rtcp-fb both support.
    static func intersect(offered: MediaDescription, capabilities: MediaCapabilities) -> [RtpCodec] {
        var result: [RtpCodec] = []
        // A payload type the m= line lists twice is one codec: answered once.
        var listed = Set<UInt8>()
        let offeredCodecs = offered.payloadTypes.filter { listed.insert($0).inserted }
            .map { pt in offered.attributes.codec(pt) ?? RtpCodec(payloadType: pt, name: nil, clockRate: nil) }
        for codec in offeredCodecs where codec.encodingName != "rtx" {
            guard
                let mine = capabilities.codecs.first(where: { $0.encodingName != "rtx" && $0.isSameFormat(as: codec) })
            else { continue }
            var accepted = codec
            accepted.formatParameters = mine.formatParameters
            let offeredFeedback = codec.feedback + offered.wildcardFeedback
            accepted.feedback = mine.feedback.filter { offeredFeedback.contains($0) }
            result.append(accepted)
        }
        if capabilities.codecs.contains(where: { $0.encodingName == "rtx" }) {
            for codec in offeredCodecs where codec.encodingName == "rtx" {
                guard let apt = codec.associatedPayloadType, result.contains(where: { $0.payloadType == apt }) else {
                    continue
                }
                var accepted = codec
                accepted.feedback = []
                result.append(accepted)
            }
            // Keep the offer's order (each RTX after the codecs, as offered).
            let order = offered.payloadTypes
            result.sort { (order.firstIndex(of: $0.payloadType) ?? 0) < (order.firstIndex(of: $1.payloadType) ?? 0) }
        }
        return result
    }

    static func intersectExtensions(offered: MediaDescription, capabilities: MediaCapabilities) -> [ExtMap] {
        offered.extensions.filter { ext in capabilities.extensions.contains { $0.uri == ext.uri } }
            .map { ExtMap(id: $0.id, direction: $0.direction?.reversed, uri: $0.uri) }
    }

    /// A rejected section: port 0, the offered formats, and (as libwebrtc writes it) the ICE
    /// and DTLS attributes without candidates, which aiortc requires in every section.
    static func rejected(_ offered: MediaDescription, local: LocalParameters) -> MediaDescription {
        var m = MediaDescription(kind: offered.kind, port: 0, proto: offered.proto, formats: offered.formats)
        addTransport(
            to: &m,
            local: local,
            setup: (offered.setup ?? .actpass).answer(preferred: local.answerSetup) ?? local.answerSetup
        )
        m.port = 0
        m.connection = ConnectionData()
        m.candidates = []
        m.endOfCandidates = false
        m.mid = offered.mid
        return m
    }
}
