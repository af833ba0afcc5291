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
