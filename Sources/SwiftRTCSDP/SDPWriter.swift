extension SessionDescription {
    /// The description as canonical SDP: CRLF line endings, RFC 8866 line order, and
    /// attributes in the order libwebrtc writes them (transport, mid, extensions, direction,
    /// msid, RTCP, codecs, sources, simulcast, SCTP), unknown attributes last in their
    /// original order.
    public var sdp: String {
        var out = ""
        func line(_ type: Character, _ value: String) {
            out.append(type)
            out += "="
            out += value
            out += "\r\n"
        }
        line("v", "\(version)")
        let o = origin
        line("o", "\(o.username) \(o.sessionId) \(o.sessionVersion) \(o.networkType) \(o.addressType) \(o.address)")
        line("s", sessionName)
        if let information { line("i", information) }
        for other in otherLines where ["u", "e", "p"].contains(other.type) { line(Character(other.type), other.value) }
        if let connection { line("c", connection.sdpValue) }
        for b in bandwidths { line("b", "\(b.type):\(b.value)") }
        for t in timing { line("t", "\(t.start) \(t.stop)") }
        for other in otherLines where ["r", "z", "k"].contains(other.type) { line(Character(other.type), other.value) }
        attributes.write { line("a", $0) }
        for m in media {
            var mline = "\(m.kind.rawValue) \(m.port)"
            if let count = m.portCount { mline += "/\(count)" }
            mline += " \(m.proto) " + m.formats.joined(separator: " ")
            line("m", mline)
            if let information = m.information { line("i", information) }
            if let connection = m.connection { line("c", connection.sdpValue) }
            for b in m.bandwidths { line("b", "\(b.type):\(b.value)") }
            for other in m.otherLines { line(Character(other.type), other.value) }
            m.attributes.write { line("a", $0) }
        }
        return out
    }
}

extension SDPAttributes {
    /// Calls `emit` with each attribute's text (after `a=`), in canonical order.
    func write(_ emit: (String) -> Void) {
        for g in groups { emit((["group:" + g.semantics] + g.mids).joined(separator: " ")) }
        if extmapAllowMixed { emit("extmap-allow-mixed") }
        if let m = msidSemantic { emit("msid-semantic: " + ([m.semantic] + m.identifiers).joined(separator: " ")) }
        if iceLite { emit("ice-lite") }
        if let rtcp {
            emit("rtcp:\(rtcp.port)" + (rtcp.connection.map { " " + $0.sdpValue } ?? ""))
        }
        for c in candidates { emit("candidate:" + c.sdpValue) }
        if let iceUfrag { emit("ice-ufrag:" + iceUfrag) }
        if let icePwd { emit("ice-pwd:" + icePwd) }
        if !iceOptions.isEmpty { emit("ice-options:" + iceOptions.joined(separator: " ")) }
        for f in fingerprints { emit("fingerprint:" + f.sdpValue) }
        if let setup { emit("setup:" + setup.rawValue) }
        if let mid { emit("mid:" + mid) }
        if bundleOnly { emit("bundle-only") }
        for e in extensions { emit("extmap:" + e.sdpValue) }
        if let direction { emit(direction.rawValue) }
        for m in msids { emit("msid:" + m.streamId + (m.trackId.map { " " + $0 } ?? "")) }
        if rtcpMux { emit("rtcp-mux") }
        if rtcpMuxOnly { emit("rtcp-mux-only") }
        if rtcpReducedSize { emit("rtcp-rsize") }
        for f in wildcardFeedback { emit("rtcp-fb:* \(f)") }
        for c in codecs {
            if let rtpmap = c.rtpmapValue { emit("rtpmap:\(c.payloadType) \(rtpmap)") }
            for f in c.feedback { emit("rtcp-fb:\(c.payloadType) \(f)") }
            if let fmtp = c.formatParameters { emit("fmtp:\(c.payloadType) \(fmtp)") }
        }
        for g in ssrcGroups { emit("ssrc-group:" + g.sdpValue) }
        for s in ssrcs { emit("ssrc:" + s.sdpValue) }
        for r in rids { emit("rid:" + r.sdpValue) }
        if let simulcast { emit("simulcast:" + simulcast.sdpValue) }
        if let sctpPort { emit("sctp-port:\(sctpPort)") }
        if let maxMessageSize { emit("max-message-size:\(maxMessageSize)") }
        if let s = sctpMap { emit("sctpmap:\(s.port) \(s.application)" + (s.streams.map { " \($0)" } ?? "")) }
        for a in other { emit(a.value.map { "\(a.name):\($0)" } ?? a.name) }
        if endOfCandidates { emit("end-of-candidates") }
    }
}
