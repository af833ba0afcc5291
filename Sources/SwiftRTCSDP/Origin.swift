/// `o=<username> <sess-id> <sess-version> <nettype> <addrtype> <unicast-address>` (RFC 8866 §5.2).
public struct Origin: Sendable, Hashable, Codable {
    /// `-` in WebRTC.
    public var username: String
    /// The session id (JSEP: a random 62-bit number).
    public var sessionId: UInt64
    /// Incremented whenever the description changes.
    public var sessionVersion: UInt64
    /// `IN`.
    public var networkType: String
    /// `IP4` or `IP6`.
    public var addressType: String
    /// An address or host name (`127.0.0.1`, `0.0.0.0`).
    public var address: String

    /// Creates an origin.
    public init(
        username: String = "-",
        sessionId: UInt64,
        sessionVersion: UInt64,
        networkType: String = "IN",
        addressType: String = "IP4",
        address: String = "127.0.0.1"
    ) {
        self.username = username
        self.sessionId = sessionId
        self.sessionVersion = sessionVersion
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }
}
