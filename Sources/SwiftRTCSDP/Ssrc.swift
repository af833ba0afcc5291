/// `a=ssrc:<ssrc> <attribute>[:<value>]` (RFC 5576 §4.1): a source and one of its attributes
/// (`cname`, `msid`, and Plan B's `mslabel`, `label`).
public struct SsrcAttribute: Sendable, Hashable, Codable {
    /// The synchronization source.
    public var ssrc: UInt32
    /// The attribute name (`cname`, `msid`), nil for a bare `a=ssrc:<ssrc>`.
    public var attribute: String?
    /// The attribute value, when it has one.
    public var value: String?

    /// Creates an SSRC attribute line.
    public init(ssrc: UInt32, attribute: String?, value: String? = nil) {
        self.ssrc = ssrc
        self.attribute = attribute
        self.value = value
    }

    init(parsing value: Substring, line: SDPLine) throws(SDPParseError) {
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard let first = parts.first, let ssrc = UInt32(first) else {
            throw SDPParseError(line, expected: "a=ssrc:<ssrc number 0-4294967295> <attribute>[:<value>]")
        }
        self.ssrc = ssrc
        if parts.count == 2 {
            let pair = parts[1].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            attribute = String(pair[0])
            self.value = pair.count == 2 ? String(pair[1]) : nil
        }
    }

    var sdpValue: String {
        guard let attribute else { return "\(ssrc)" }
        return value.map { "\(ssrc) \(attribute):\($0)" } ?? "\(ssrc) \(attribute)"
    }
}

/// `a=ssrc-group:<semantics> <ssrc> ...` (RFC 5576 §4.2): `FID` (RTX, RFC 4588), `SIM`
/// (legacy simulcast), `FEC-FR`.
public struct SsrcGroup: Sendable, Hashable, Codable {
    /// `FID`, `SIM`, `FEC-FR`...
    public var semantics: String
    /// The sources in the group, in order (for FID: media, then retransmission).
    public var ssrcs: [UInt32]

    /// Creates a group.
    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }

    init(parsing value: Substring, line: SDPLine) throws(SDPParseError) {
        let parts = value.split(separator: " ", omittingEmptySubsequences: true)
        guard let first = parts.first else {
            throw SDPParseError(line, expected: "a=ssrc-group:<semantics> <ssrc> ...")
        }
        var ssrcs: [UInt32] = []
        for part in parts.dropFirst() {
            guard let ssrc = UInt32(part) else {
                throw SDPParseError(line, expected: "SSRC numbers (0-4294967295) after the group semantics")
            }
            ssrcs.append(ssrc)
        }
        self.init(semantics: String(first), ssrcs: ssrcs)
    }

    var sdpValue: String { ([semantics] + ssrcs.map(String.init)).joined(separator: " ") }
}
