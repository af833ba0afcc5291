/// An attribute SwiftRTC does not model: `a=<name>` or `a=<name>:<value>`.
public struct SDPAttribute: Sendable, Hashable, Codable {
    /// The name as written.
    public var name: String
    /// The value, for `a=<name>:<value>`.
    public var value: String?
    /// Creates an attribute.
    public init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }
}
