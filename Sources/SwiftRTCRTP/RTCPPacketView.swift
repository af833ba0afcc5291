/// One RTCP packet in a datagram, not yet decoded: its header fields and body bytes.
public struct RTCPPacketView {
    @usableFromInline
    init(offset: Int, count: UInt8, packetType: UInt8, body: UnsafeRawBufferPointer) {
        self.offset = offset
        self.count = count
        self.packetType = packetType
        self.body = body
    }

    /// Where the packet starts in the datagram.
    public let offset: Int
    /// The 5-bit count (RC/SC) or feedback format (FMT).
    public let count: UInt8
    /// The packet type (PT).
    public let packetType: UInt8
    /// The body after the 4-byte header, without padding.
    public let body: UnsafeRawBufferPointer
}
