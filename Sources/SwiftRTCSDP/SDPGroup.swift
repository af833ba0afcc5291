/// `a=group:<semantics> <mid>...` (RFC 5888 §5).
public struct SDPGroup: Sendable, Hashable, Codable {
    /// `BUNDLE`, `LS`, `FID`...
    public var semantics: String
    /// The mids in the group, in order; for BUNDLE the first is the offerer's tag.
    public var mids: [String]
    /// Creates a group.
    public init(semantics: String, mids: [String]) {
        self.semantics = semantics
        self.mids = mids
    }
}
