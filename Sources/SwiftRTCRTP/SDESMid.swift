/// `urn:ietf:params:rtp-hdrext:sdes:mid` (RFC 8843): the media section a packet belongs to.
public struct SDESMid: SDESTextExtension {
    /// The URI that `a=extmap` names this extension by.
    public static let uri = "urn:ietf:params:rtp-hdrext:sdes:mid"
    /// The identifier.
    public var value: String
    /// Creates the value.
    public init(value: String) { self.value = value }
}
