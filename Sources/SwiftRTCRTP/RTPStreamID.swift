/// `urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id` (RFC 8852): the simulcast layer (rid).
public struct RTPStreamID: SDESTextExtension {
    /// The URI that `a=extmap` names this extension by.
    public static let uri = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    /// The identifier.
    public var value: String
    /// Creates the value.
    public init(value: String) { self.value = value }
}
