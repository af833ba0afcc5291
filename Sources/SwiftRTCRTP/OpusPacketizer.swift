/// Puts Opus packets in RTP (RFC 7587 §4): one Opus packet per RTP packet, the timestamp at
/// 48 kHz whatever the real sampling rate. Written into a caller-provided buffer.
public struct OpusPacketizer: Sendable {
    /// The synchronization source (SSRC).
    public var ssrc: UInt32
    /// The RTP payload type.
    public var payloadType: UInt8
    /// The RTP sequence number.
    public var sequenceNumber: UInt16

    /// Creates the value from its fields.
    public init(ssrc: UInt32, payloadType: UInt8, sequenceNumber: UInt16 = 0) {
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
    }

    /// Writes one RTP packet for `opusPacket` and returns its length. `marker` flags the first
    /// packet of a talkspurt (after DTX silence).
    @inlinable
    public mutating func packetize(
        _ opusPacket: UnsafeRawBufferPointer,
        timestamp: UInt32,
        marker: Bool = false,
        into buffer: UnsafeMutableRawBufferPointer,
        extensions: (inout RTPPacketWriter) throws(RTPError) -> Void = { _ throws(RTPError) in }
    ) throws(RTPError) -> Int {
        var writer = try RTPPacketWriter(
            into: buffer,
            header: RTPHeader(
                marker: marker,
                payloadType: payloadType,
                sequenceNumber: sequenceNumber,
                timestamp: timestamp,
                ssrc: ssrc
            )
        )
        try extensions(&writer)
        try writer.appendPayload(opusPacket)
        sequenceNumber &+= 1
        return try writer.finish()
    }
}
