/// The RTCP packet types (RFC 3550, 4585, 3611).
public enum RTCPPacketType {
    /// The packet type value.
    public static let senderReport: UInt8 = 200
    /// The packet type value.
    public static let receiverReport: UInt8 = 201
    /// The packet type value.
    public static let sourceDescription: UInt8 = 202
    /// The packet type value.
    public static let goodbye: UInt8 = 203
    /// The packet type value.
    public static let application: UInt8 = 204
    /// The packet type value.
    public static let transportFeedback: UInt8 = 205
    /// The packet type value.
    public static let payloadFeedback: UInt8 = 206
    /// The packet type value.
    public static let extendedReport: UInt8 = 207
}
