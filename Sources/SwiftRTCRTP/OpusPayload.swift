/// The Opus TOC byte (RFC 6716 §3.1): configuration, stereo flag and frame count code.
/// ```
///  0 1 2 3 4 5 6 7
/// +-+-+-+-+-+-+-+-+
/// | config  |s| c |
/// +-+-+-+-+-+-+-+-+
/// ```
public struct OpusTOC: Sendable, Hashable {
    /// The 5-bit configuration (mode, bandwidth, frame size).
    public var configuration: UInt8
    /// The s bit: stereo.
    public var isStereo: Bool
    /// Frames in the packet (code 0: 1, 1-2: 2, 3: the count byte).
    public var frameCount: Int
    /// One frame's duration in microseconds (2500 to 60000).
    public var frameDurationMicroseconds: Int

    /// Reads the TOC (and, for code 3, the frame count byte) of an Opus packet.
    @inlinable
    public init(parsing packet: UnsafeRawBufferPointer) throws(RTPError) {
        guard packet.count >= 1 else { throw .truncated(what: "Opus TOC", offset: 0, needed: 1, available: 0) }
        let toc = packet.u8(0)
        configuration = toc >> 3
        isStereo = toc & 4 != 0
        switch toc & 3 {
        case 0: frameCount = 1
        case 1, 2: frameCount = 2
        default:
            guard packet.count >= 2 else { throw .truncated(what: "Opus frame count byte", offset: 1, needed: 1, available: 0) }
            frameCount = Int(packet.u8(1) & 0x3F)
            guard frameCount >= 1 else { throw .invalidField(what: "Opus frame count", offset: 1, value: 0) }
        }
        let c = Int(configuration)
        switch c {
        case 0 ... 11: frameDurationMicroseconds = [10_000, 20_000, 40_000, 60_000][c % 4]  // SILK
        case 12 ... 15: frameDurationMicroseconds = [10_000, 20_000][c % 2]  // hybrid
        default: frameDurationMicroseconds = [2_500, 5_000, 10_000, 20_000][c % 4]  // CELT
        }
    }

    /// The packet's duration in samples at 48 kHz (the RTP timestamp increment, RFC 7587 §4.1).
    public var samples: Int { frameCount * frameDurationMicroseconds * 48 / 1000 }
}

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
        _ opusPacket: UnsafeRawBufferPointer, timestamp: UInt32, marker: Bool = false, into buffer: UnsafeMutableRawBufferPointer,
        extensions: (inout RTPPacketWriter) throws(RTPError) -> Void = { _ throws(RTPError) in }
    ) throws(RTPError) -> Int {
        var writer = try RTPPacketWriter(into: buffer, header: RTPHeader(marker: marker, payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc))
        try extensions(&writer)
        try writer.appendPayload(opusPacket)
        sequenceNumber &+= 1
        return try writer.finish()
    }
}

/// Takes Opus packets out of RTP (RFC 7587): every non-empty payload is one frame.
public enum OpusDepacketizer {
    /// The frame in `packet`, or nil for a padding-only packet.
    public static func frame(from packet: RTPPacket) -> EncodedFrame? {
        guard !packet.isPaddingOnly else { return nil }
        return EncodedFrame(codec: .opus, data: Array(packet.payload), timestamp: packet.timestamp, isKeyframe: true)
    }
}
