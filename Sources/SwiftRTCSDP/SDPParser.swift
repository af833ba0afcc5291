import SwiftRTCCore

extension SessionDescription {
    /// Parses SDP text (RFC 8866) with CRLF or LF line endings.
    ///
    /// Accepts the small sloppiness real stacks produce (trailing blanks, blank lines, a space
    /// after `msid-semantic:`, upper-case transports, attributes in any order, rtpmap lines for
    /// payload types missing from the m= line) and rejects what is really broken with an
    /// `SDPParseError` naming the line. Total: no input traps. Bounded: a description of more
    /// than ``RemoteInputLimits/maxDescriptionLines`` lines, ``RemoteInputLimits/maxMediaSections``
    /// sections or ``RemoteInputLimits/maxCandidatesPerSection`` candidates in a section is
    /// refused; `b=` values above ``RemoteInputLimits/maxBitrate`` are read as that.
    public init(parsing text: String) throws(SDPParseError) {
        let lines = SDPLine.split(text)
        let (origin, name) = try Self.header(lines)
        self.init(origin: origin)
        sessionName = name
        var sawTiming = false
        timing = []
        for line in lines.dropFirst(3) {
            if media.isEmpty, line.type != "m" {
                try parseSessionLine(line, sawTiming: &sawTiming)
            } else {
                try parseMediaLine(line, sawTiming: sawTiming)
            }
        }
        guard sawTiming else {
            let last = lines[lines.count - 1]
            throw SDPParseError(last, expected: "a t= (timing) line (the description ends without one)")
        }
        if var last = media.popLast() {
            last.finish()
            media.append(last)
        }
        // RFC 8866 order (u e p before c=, r z k after t=), as the writer puts them back.
        let rank = ["u", "e", "p", "r", "z", "k"]
        otherLines = otherLines.enumerated().sorted { a, b in
            let ra = rank.firstIndex(of: a.element.type) ?? 0, rb = rank.firstIndex(of: b.element.type) ?? 0
            return ra != rb ? ra < rb : a.offset < b.offset
        }.map(\.element)
    }

    /// The first three lines, `v=0`, `o=` and `s=`, in that order: the origin and the session
    /// name; a description over the line limit is refused here.
    static func header(_ lines: [SDPLine]) throws(SDPParseError) -> (Origin, String) {
        if lines.count > RemoteInputLimits.maxDescriptionLines {
            throw SDPParseError(
                lines[RemoteInputLimits.maxDescriptionLines],
                expected: "at most \(RemoteInputLimits.maxDescriptionLines) lines in a description"
            )
        }
        guard let first = lines.first else {
            throw SDPParseError(lineNumber: 1, line: "", expected: "v=0 (the description is empty)")
        }
        guard first.type == "v", first.value == "0" else {
            throw SDPParseError(first, expected: "v=0 as the first line")
        }
        guard lines.count > 1 else {
            throw SDPParseError(first, expected: "an o= (origin) line after v=0 (the description ends here)")
        }
        let originLine = lines[1]
        guard originLine.type == "o" else { throw SDPParseError(originLine, expected: "o= (origin) after v=0") }
        let origin = try Origin(parsing: originLine)
        guard lines.count > 2 else {
            throw SDPParseError(originLine, expected: "an s= (session name) line after o= (the description ends here)")
        }
        guard lines[2].type == "s" else { throw SDPParseError(lines[2], expected: "s= (session name) after o=") }
        return (origin, String(lines[2].value))
    }

    /// A session-level line (before the first `m=`).
    mutating func parseSessionLine(_ line: SDPLine, sawTiming: inout Bool) throws(SDPParseError) {
        switch line.type {
        case "i": information = String(line.value)
        case "c": connection = try ConnectionData(parsing: line.value, line: line)
        case "b": bandwidths.append(try Bandwidth(parsing: line))
        case "t":
            timing.append(try Timing(parsing: line))
            sawTiming = true
        case "a": try attributes.parse(line)
        case "u", "e", "p", "r", "z", "k":
            otherLines.append(SDPOtherLine(type: String(line.type), value: String(line.value)))
        case "v", "o", "s":
            throw SDPParseError(line, expected: "a single \(line.type)= line at the top of the description")
        default: throw SDPParseError(line, expected: Self.lineTypes)
        }
    }

    /// An `m=` line, which starts a section (the previous one finished), or a line of the
    /// current section.
    mutating func parseMediaLine(_ line: SDPLine, sawTiming: Bool) throws(SDPParseError) {
        switch line.type {
        case "m":
            guard sawTiming else {
                throw SDPParseError(line, expected: "a t= (timing) line before the first m= line")
            }
            if var last = media.popLast() {
                last.finish()
                media.append(last)
            }
            guard media.count < RemoteInputLimits.maxMediaSections else {
                throw SDPParseError(
                    line,
                    expected: "at most \(RemoteInputLimits.maxMediaSections) m= sections in a description"
                )
            }
            media.append(try MediaDescription(parsing: line))
        case "i": media[media.count - 1].information = String(line.value)
        case "c": media[media.count - 1].connection = try ConnectionData(parsing: line.value, line: line)
        case "b": media[media.count - 1].bandwidths.append(try Bandwidth(parsing: line))
        case "a": try media[media.count - 1].attributes.parse(line)
        case "k": media[media.count - 1].otherLines.append(SDPOtherLine(type: "k", value: String(line.value)))
        case "v", "o", "s", "t", "u", "e", "p", "r", "z":
            throw SDPParseError(
                line,
                expected:
                    "i=, c=, b=, k=, a= or m= lines in a media section (\(line.type)= belongs at session level)"
            )
        default: throw SDPParseError(line, expected: Self.lineTypes)
        }
    }

    /// Parses SDP bytes (UTF-8; invalid sequences become U+FFFD and fail where they stand).
    public init(parsing bytes: some Sequence<UInt8>) throws(SDPParseError) {
        try self.init(parsing: String(decoding: Array(bytes), as: UTF8.self))
    }

    static let lineTypes = "a line of the form <type>=<value> with type v, o, s, i, u, e, p, c, b, t, r, z, k, a or m"
}

extension Origin {
    init(parsing line: SDPLine) throws(SDPParseError) {
        let parts = line.value.split(separator: " ", omittingEmptySubsequences: true)
        let expected = "o=<username> <session id> <session version> <nettype> <addrtype> <address>"
        guard parts.count == 6 else { throw SDPParseError(line, expected: expected) }
        guard let id = UInt64(parts[1]) else { throw SDPParseError(line, expected: "a numeric session id in o=") }
        guard let version = UInt64(parts[2]) else {
            throw SDPParseError(line, expected: "a numeric session version in o=")
        }
        self.init(
            username: String(parts[0]),
            sessionId: id,
            sessionVersion: version,
            networkType: String(parts[3]),
            addressType: String(parts[4]),
            address: String(parts[5])
        )
    }
}

extension ConnectionData {
    init(parsing value: Substring, line: SDPLine) throws(SDPParseError) {
        let parts = value.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3 else { throw SDPParseError(line, expected: "c=<nettype> <addrtype> <address>") }
        self.init(networkType: String(parts[0]), addressType: String(parts[1]), address: String(parts[2]))
    }
}

extension Bandwidth {
    init(parsing line: SDPLine) throws(SDPParseError) {
        let parts = line.value.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, let value = UInt64(parts[1].trimmingBlanks) else {
            throw SDPParseError(line, expected: "b=<type>:<bandwidth number>")
        }
        // Whatever the unit (kbit/s for AS, bit/s for TIAS), no peer needs more: clamped here
        // so that converting to bit/s cannot overflow.
        self.init(type: String(parts[0]), value: min(value, UInt64(RemoteInputLimits.maxBitrate)))
    }
}

extension Timing {
    init(parsing line: SDPLine) throws(SDPParseError) {
        let parts = line.value.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, let start = UInt64(parts[0]), let stop = UInt64(parts[1]) else {
            throw SDPParseError(line, expected: "t=<start time> <stop time> (numbers)")
        }
        self.init(start: start, stop: stop)
    }
}

extension MediaDescription {
    init(parsing line: SDPLine) throws(SDPParseError) {
        let parts = line.value.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count >= 4 else {
            throw SDPParseError(line, expected: "m=<media> <port> <proto> <format> ... (at least one format)")
        }
        let portParts = parts[1].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let port = UInt16(portParts[0]) else { throw SDPParseError(line, expected: "an m= port from 0 to 65535") }
        self.init(
            kind: MediaKind(rawValue: String(parts[0])),
            port: port,
            proto: String(parts[2]),
            formats: parts.dropFirst(3).map(String.init)
        )
        if portParts.count == 2 {
            guard let count = UInt16(portParts[1]) else {
                throw SDPParseError(line, expected: "a port count number after / in m=")
            }
            portCount = count
        }
        if isRTP {
            for format in formats where UInt8(format).map({ $0 > 127 }) ?? true {
                throw SDPParseError(line, expected: "RTP payload types from 0 to 127 as formats, not \"\(format)\"")
            }
        }
    }

    /// Orders the codecs as the m= line lists their payload types (others after, as seen).
    mutating func finish() {
        let order = payloadTypes
        attributes.codecs = attributes.codecs.enumerated().sorted { a, b in
            let ia = order.firstIndex(of: a.element.payloadType) ?? order.count + a.offset
            let ib = order.firstIndex(of: b.element.payloadType) ?? order.count + b.offset
            return ia < ib
        }.map(\.element)
    }
}

extension SDPAttributes {
    /// Adds one `a=` line.
    mutating func parse(_ line: SDPLine) throws(SDPParseError) {
        let a = SDPAttributeLine(line)
        let value = a.value
        switch a.name {
        case "group": groups.append(try a.group())
        case "msid-semantic": msidSemantic = try a.msidSemantic()
        case "ice-lite": try a.flag(&iceLite)
        case "ice-ufrag": iceUfrag = try a.nonEmpty()
        case "ice-pwd": icePwd = try a.nonEmpty()
        case "ice-options": iceOptions = value.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        case "fingerprint": fingerprints.append(try Fingerprint(parsing: value, line: line))
        case "setup":
            guard let setup = DTLSSetup(rawValue: String(value.trimmingBlanks).lowercased()) else {
                throw a.error("a=setup:active, passive, actpass or holdconn")
            }
            self.setup = setup
        case "mid": mid = try a.nonEmpty()
        case "bundle-only": try a.flag(&bundleOnly)
        case "extmap-allow-mixed": try a.flag(&extmapAllowMixed)
        case "extmap": extensions.append(try ExtMap(parsing: value, line: line))
        case "sendrecv", "sendonly", "recvonly", "inactive":
            guard value.trimmingBlanks.isEmpty else { throw a.error("a=\(a.name) without a value") }
            direction = MediaDirection(rawValue: String(a.name))
        case "msid": msids.append(try a.msid())
        case "rtcp": rtcp = try a.rtcpAddress()
        case "rtcp-mux": try a.flag(&rtcpMux)
        case "rtcp-mux-only": try a.flag(&rtcpMuxOnly)
        case "rtcp-rsize": try a.flag(&rtcpReducedSize)
        case "rtpmap": try parseRtpmap(a)
        case "fmtp": try parseFmtp(a)
        case "rtcp-fb": try parseRtcpFeedback(a)
        case "ssrc": ssrcs.append(try SsrcAttribute(parsing: value, line: line))
        case "ssrc-group": ssrcGroups.append(try SsrcGroup(parsing: value, line: line))
        case "rid": rids.append(try Rid(parsing: value, line: line))
        case "simulcast":
            guard simulcast == nil else { throw a.error("one a=simulcast per media section") }
            simulcast = try Simulcast(parsing: value, line: line)
        case "candidate":
            guard candidates.count < RemoteInputLimits.maxCandidatesPerSection else {
                throw a.error("at most \(RemoteInputLimits.maxCandidatesPerSection) candidates in a section")
            }
            candidates.append(try IceCandidate(parsing: value, line: line))
        case "end-of-candidates": try a.flag(&endOfCandidates)
        case "sctp-port": sctpPort = try a.number(UInt16.self, "a=sctp-port")
        case "max-message-size": maxMessageSize = try a.number(UInt64.self, "a=max-message-size")
        case "sctpmap": sctpMap = try a.sctpMap()
        default:
            guard !a.name.isEmpty else { throw a.error("an attribute name after a=") }
            other.append(SDPAttribute(name: String(a.name), value: a.hasValue ? String(value) : nil))
        }
    }

    /// The codec of payload type `pt`, added (unnamed) when no line named it yet.
    mutating func codecIndex(_ pt: UInt8) -> Int {
        if let index = codecs.firstIndex(where: { $0.payloadType == pt }) { return index }
        codecs.append(RtpCodec(payloadType: pt, name: nil, clockRate: nil))
        return codecs.count - 1
    }

    /// `a=rtpmap:<payload type> <encoding name>/<clock rate>[/<channels>]`, once per payload type.
    mutating func parseRtpmap(_ a: SDPAttributeLine) throws(SDPParseError) {
        let parts = a.value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        let expected = "a=rtpmap:<payload type> <encoding name>/<clock rate>[/<channels>]"
        guard parts.count == 2 else { throw a.error(expected) }
        let pt = try a.payloadType(parts[0])
        let encoding = parts[1].split(separator: "/", omittingEmptySubsequences: false)
        guard (2...3).contains(encoding.count), !encoding[0].isEmpty else { throw a.error(expected) }
        guard let rate = UInt32(encoding[1]) else { throw a.error("a clock rate number in a=rtpmap") }
        var channels: UInt16?
        if encoding.count == 3 {
            guard let n = UInt16(encoding[2]) else { throw a.error("a channel count number in a=rtpmap") }
            channels = n
        }
        let index = codecIndex(pt)
        guard codecs[index].name == nil else {
            throw a.error("one a=rtpmap per payload type (\(pt) is mapped twice)")
        }
        codecs[index].name = String(encoding[0])
        codecs[index].clockRate = rate
        codecs[index].channels = channels
    }

    /// `a=fmtp:<payload type> <parameters>`; a second one for a payload type is kept as
    /// written, not merged.
    mutating func parseFmtp(_ a: SDPAttributeLine) throws(SDPParseError) {
        let parts = a.value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard let first = parts.first else { throw a.error("a=fmtp:<payload type> <parameters>") }
        let index = codecIndex(try a.payloadType(first))
        let parameters = parts.count == 2 ? String(parts[1]) : ""
        if codecs[index].formatParameters == nil {
            codecs[index].formatParameters = parameters
        } else {
            other.append(SDPAttribute(name: String(a.name), value: String(a.value)))
        }
    }

    /// `a=rtcp-fb:<payload type or *> <type> [<parameter>]`.
    mutating func parseRtcpFeedback(_ a: SDPAttributeLine) throws(SDPParseError) {
        let parts = a.value.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count >= 2 else { throw a.error("a=rtcp-fb:<payload type or *> <type> [<parameter>]") }
        let feedback = RtcpFeedback(String(parts[1]), parts.count > 2 ? parts[2...].joined(separator: " ") : nil)
        if parts[0] == "*" {
            wildcardFeedback.append(feedback)
        } else {
            codecs[codecIndex(try a.payloadType(parts[0]))].feedback.append(feedback)
        }
    }
}
