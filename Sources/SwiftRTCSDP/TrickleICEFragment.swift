/// An `application/trickle-ice-sdpfrag` body (RFC 8840 §9.2, as WHIP uses it in RFC 9725
/// §4.3): the ICE credentials of a description, and candidates trickled after it or gathered
/// anew for an ICE restart, for the one media section they all go on (WHIP bundles
/// everything: the first section's `mid`).
///
///     a=ice-ufrag:EsAw
///     a=ice-pwd:P2uYro0UCOQ4zxjKXaWCBui1
///     m=audio 9 UDP/TLS/RTP/SAVPF 111
///     a=mid:0
///     a=candidate:1387637174 1 udp 2122260223 192.0.2.1 61764 typ host
///     a=end-of-candidates
///
/// Read from a peer: at most ``maxCandidates`` candidates and ``maxLines`` lines, each
/// candidate parsed (``IceCandidate``); other lines (`a=group`, the `m=` line, unknown
/// attributes) are skipped.
public struct TrickleICEFragment: Sendable, Hashable, CustomStringConvertible {
    /// The most candidates one fragment may carry (a browser gathers a handful per network).
    public static let maxCandidates = 64
    /// The most lines one fragment may have.
    public static let maxLines = 256

    /// `a=ice-ufrag`: the username fragment the candidates belong to.
    public var usernameFragment: String?
    /// `a=ice-pwd`.
    public var password: String?
    /// `a=mid` of the section the candidates are for.
    public var mid: String?
    /// The candidates, `candidate:...` as in SDP without `a=`.
    public var candidates: [String]
    /// Whether `a=end-of-candidates` is there: no more candidates follow.
    public var endOfCandidates: Bool

    /// A fragment of these parts.
    public init(
        usernameFragment: String? = nil,
        password: String? = nil,
        mid: String? = nil,
        candidates: [String] = [],
        endOfCandidates: Bool = false
    ) {
        self.usernameFragment = usernameFragment
        self.password = password
        self.mid = mid
        self.candidates = candidates
        self.endOfCandidates = endOfCandidates
    }

    /// Reads a fragment; a candidate that does not parse, a second `ice-ufrag`, `ice-pwd` or
    /// `mid`, or more than ``maxCandidates`` candidates or ``maxLines`` lines is an error.
    public init(parsing text: String) throws(SDPParseError) {
        self.init()
        let lines = SDPLine.split(text)
        if let extra = lines.dropFirst(Self.maxLines).first {
            throw SDPParseError(extra, expected: "at most \(Self.maxLines) lines in a trickle-ice-sdpfrag")
        }
        for line in lines {
            let text = line.text
            guard text.hasPrefix("a=") else { continue }
            let attribute = text.dropFirst(2)
            if attribute.hasPrefix("candidate:") {
                guard candidates.count < Self.maxCandidates else {
                    throw SDPParseError(line, expected: "at most \(Self.maxCandidates) candidates in a fragment")
                }
                let candidate = String(attribute)
                do { _ = try IceCandidate(sdpLine: candidate) } catch {
                    throw SDPParseError(line, expected: error.expected)
                }
                candidates.append(candidate)
            } else if attribute == "end-of-candidates" {
                endOfCandidates = true
            } else if let value = Self.value(of: "ice-ufrag", in: attribute) {
                guard usernameFragment == nil else { throw SDPParseError(line, expected: "one a=ice-ufrag") }
                usernameFragment = value
            } else if let value = Self.value(of: "ice-pwd", in: attribute) {
                guard password == nil else { throw SDPParseError(line, expected: "one a=ice-pwd") }
                password = value
            } else if let value = Self.value(of: "mid", in: attribute) {
                guard mid == nil else { throw SDPParseError(line, expected: "one a=mid") }
                mid = value
            }
        }
    }

    /// The value of `a=<name>:<value>`, when `attribute` is that one with a non-empty value.
    private static func value(of name: String, in attribute: Substring) -> String? {
        guard attribute.hasPrefix(name + ":") else { return nil }
        // Trailing blanks are gone already (SDPLine).
        let value = attribute.dropFirst(name.count + 1).drop { $0 == " " || $0 == "\t" }
        return value.isEmpty ? nil : String(value)
    }

    /// The fragment as sent (CRLF line endings): credentials, then a media line for ``mid``
    /// with the candidates (RFC 8840 §9.2).
    public var sdpfrag: String {
        var lines: [String] = []
        if let usernameFragment { lines.append("a=ice-ufrag:\(usernameFragment)") }
        if let password { lines.append("a=ice-pwd:\(password)") }
        if mid != nil || !candidates.isEmpty || endOfCandidates {
            lines.append("m=audio 9 UDP/TLS/RTP/SAVPF 0")
            if let mid { lines.append("a=mid:\(mid)") }
            lines += candidates.map { "a=\($0)" }
            if endOfCandidates { lines.append("a=end-of-candidates") }
        }
        return lines.map { $0 + "\r\n" }.joined()
    }

    /// What it carries, in one line (never the password).
    public var description: String {
        "ice-ufrag \(usernameFragment ?? "none"), mid \(mid ?? "none"), \(candidates.count) candidate(s)\(endOfCandidates ? ", end of candidates" : "")"
    }
}
