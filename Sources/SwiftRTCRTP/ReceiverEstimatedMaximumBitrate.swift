import SwiftRTCCore

/// Receiver estimated maximum bitrate (draft-alvestrand-rmcat-remb; PSFB, PT 206, FMT 15,
/// application layer feedback with the "REMB" identifier).
/// ```
/// |V=2|P| FMT=15  |   PT=206      |             length            |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source (0)                     |
/// |  Unique identifier 'R' 'E' 'M' 'B'                            |
/// |  Num SSRC     | BR Exp    |  BR Mantissa                      |
/// |   SSRC feedback ...                                           |
/// ```
public struct ReceiverEstimatedMaximumBitrate: RTCPPacketBody {
    /// The RTCP packet type (PT) of this packet.
    public static let packetType = RTCPPacketType.payloadFeedback
    /// The feedback message type (FMT) of this packet.
    public static let format: UInt8 = 15
    static let identifier: UInt32 = 0x5245_4D42  // "REMB"

    /// The SSRC of the packet's sender.
    public var senderSSRC: UInt32
    /// Bits per second (as exponent and 18-bit mantissa on the wire; rounded down when written).
    public var bitrate: UInt64
    /// The SSRCs the estimate applies to.
    public var ssrcs: [UInt32]

    /// Creates the value from its fields.
    public init(senderSSRC: UInt32, bitrate: UInt64, ssrcs: [UInt32]) {
        self.senderSSRC = senderSSRC
        self.bitrate = bitrate
        self.ssrcs = ssrcs
    }

    static func matches(_ body: UnsafeRawBufferPointer) -> Bool { body.count >= 12 && body.u32(8) == identifier }

    public init(count: UInt8, body: UnsafeRawBufferPointer, offset: Int) throws(RTPError) {
        try Self.require(body, 16, "RTCP REMB", offset)
        senderSSRC = body.u32(0)
        let number = Int(body.u8(12))
        let exponent = UInt64(body.u8(13) >> 2)
        let mantissa = UInt64(body.u24(13) & 0x3FFFF)
        bitrate = exponent > 46 ? UInt64.max : mantissa << exponent
        try Self.require(body, 16 + 4 * number, "RTCP REMB SSRC list", offset)
        ssrcs = (0..<number).map { body.u32(16 + 4 * $0) }
    }

    public var headerCount: UInt8 { Self.format }
    public var bodyLength: Int { 16 + 4 * min(ssrcs.count, 255) }

    public func writeBody(into b: UnsafeMutableRawBufferPointer) {
        var exponent: UInt64 = 0, mantissa = bitrate
        while mantissa > 0x3FFFF {
            mantissa >>= 1
            exponent += 1
        }
        b.put32(senderSSRC, at: 0)
        b.put32(0, at: 4)
        b.put32(Self.identifier, at: 8)
        b.put8(UInt8(min(ssrcs.count, 255)), at: 12)
        b.put24(UInt32(exponent << 18 | mantissa), at: 13)
        for (i, ssrc) in ssrcs.prefix(255).enumerated() { b.put32(ssrc, at: 16 + 4 * i) }
    }
}
