/// A line of an RFC 8866 type SwiftRTC does not model (`u=`, `e=`, `p=`, `r=`, `z=`, `k=`).
public struct SDPOtherLine: Sendable, Hashable, Codable {
    /// The one-letter type.
    public var type: String
    /// Everything after `=`.
    public var value: String
    /// Creates a line.
    public init(type: String, value: String) {
        self.type = type
        self.value = value
    }
}
