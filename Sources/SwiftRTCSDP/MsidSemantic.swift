/// `a=msid-semantic:<semantic> [<id>...]` (WebRTC's legacy stream list; `WMS *` or `WMS <ids>`).
public struct MsidSemantic: Sendable, Hashable, Codable {
    /// Usually `WMS`.
    public var semantic: String
    /// The stream ids, or `*`.
    public var identifiers: [String]
    /// Creates the attribute.
    public init(semantic: String, identifiers: [String]) {
        self.semantic = semantic
        self.identifiers = identifiers
    }
}
