/// `urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id` (RFC 8852): the rid an RTX stream repairs.
public struct RepairedRTPStreamID: SDESTextExtension {
    /// The URI that `a=extmap` names this extension by.
    public static let uri = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"
    /// The identifier.
    public var value: String
    /// Creates the value.
    public init(value: String) { self.value = value }
}
