import SwiftRTCCore

/// A picture loss indication (RFC 4585 §6.3.1; PSFB, PT 206, FMT 1): please send a keyframe.
/// ```
/// |V=2|P|  FMT=1  |   PT=206      |          length=2             |
/// |                  SSRC of packet sender                        |
/// |                  SSRC of media source                         |
/// ```
public struct PictureLossIndication: RTCPPacketBody {
    /// The RTCP packet type (PT) of this packet.
    public static let packetType = RTCPPacketType.payloadFeedback
    /// The feedback message type (FMT) of this packet.
    public static let format: UInt8 = 1
    /// The SSRC of the packet's sender.
    public var senderSSRC: UInt32
    /// The SSRC of the media source the feedback is about.
    public var mediaSSRC: UInt32

    /// Creates the value from its fields.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
    }

    public init(count: UInt8, body: UnsafeRawBufferPointer, offset: Int) throws(RTPError) {
        try Self.require(body, 8, "RTCP payload-specific feedback (PLI)", offset)
        senderSSRC = body.u32(0)
        mediaSSRC = body.u32(4)
    }

    public var headerCount: UInt8 { Self.format }
    public var bodyLength: Int { 8 }

    public func writeBody(into b: UnsafeMutableRawBufferPointer) {
        b.put32(senderSSRC, at: 0)
        b.put32(mediaSSRC, at: 4)
    }
}
