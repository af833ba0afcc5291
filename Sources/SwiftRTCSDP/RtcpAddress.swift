/// `a=rtcp:<port> [IN IP4|IP6 <address>]` (RFC 3605).
public struct RtcpAddress: Sendable, Hashable, Codable {
    /// The RTCP port.
    public var port: UInt16
    /// The connection address, if written.
    public var connection: ConnectionData?
    /// Creates the attribute.
    public init(port: UInt16, connection: ConnectionData? = nil) {
        self.port = port
        self.connection = connection
    }
}
