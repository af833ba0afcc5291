/// `c=<nettype> <addrtype> <connection-address>` (RFC 8866 §5.7).
public struct ConnectionData: Sendable, Hashable, Codable {
    /// `IN`.
    public var networkType: String
    /// `IP4` or `IP6`.
    public var addressType: String
    /// The address (with `/ttl` or `/count` for multicast, as written).
    public var address: String

    /// Creates connection data.
    public init(networkType: String = "IN", addressType: String = "IP4", address: String = "0.0.0.0") {
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    var sdpValue: String { "\(networkType) \(addressType) \(address)" }
}
