/// `b=<bwtype>:<bandwidth>` (RFC 8866 §5.8): `AS`, `TIAS`, `CT`...
public struct Bandwidth: Sendable, Hashable, Codable {
    /// The bandwidth type as written.
    public var type: String
    /// The value (kbit/s for AS and CT, bit/s for TIAS).
    public var value: UInt64
    /// Creates a bandwidth line.
    public init(type: String, value: UInt64) {
        self.type = type
        self.value = value
    }
}
