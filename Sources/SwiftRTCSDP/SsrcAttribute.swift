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
