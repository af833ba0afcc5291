/// The fixed fields of an RTP header to write.
public struct RTPHeader: Sendable, Hashable {
    /// The marker bit.
    public var marker: Bool
    /// The RTP payload type.
    public var payloadType: UInt8
    /// The RTP sequence number.
    public var sequenceNumber: UInt16
    /// The RTP timestamp.
    public var timestamp: UInt32
    /// The synchronization source (SSRC).
    public var ssrc: UInt32

    /// Creates the value from its fields.
    public init(marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
    }
}
