import SwiftRTCCore

/// A full intra request (RFC 5104 §4.3.1; PSFB, PT 206, FMT 4).
/// ```
/// |V=2|P|  FMT=4  |   PT=206      |          length               |
/// |                  SSRC of packet sender                        |
/// |             SSRC of media source (unused, 0)                  |
/// |                              SSRC                             |  (per entry)
/// | Seq nr.       |    Reserved                                   |
/// ```
public struct FullIntraRequest: RTCPPacketBody {
    /// The RTCP packet type (PT) of this packet.
    public static let packetType = RTCPPacketType.payloadFeedback
    /// The feedback message type (FMT) of this packet.
    public static let format: UInt8 = 4

    /// The FCI entry: whom the request is for and its command sequence number.
    public struct Entry: Sendable, Hashable {
        /// The synchronization source (SSRC).
        public var ssrc: UInt32
        /// The command sequence number.
        public var sequenceNumber: UInt8
        /// Creates the value from its fields.
        public init(ssrc: UInt32, sequenceNumber: UInt8) {
            self.ssrc = ssrc
            self.sequenceNumber = sequenceNumber
        }
    }

    /// The SSRC of the packet's sender.
    public var senderSSRC: UInt32
    /// The SSRC of the media source the feedback is about.
    public var mediaSSRC: UInt32
    /// One entry per media sender asked for a keyframe.
    public var entries: [Entry]

    /// Creates the value from its fields.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, entries: [Entry]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.entries = entries
    }

    public init(count: UInt8, body: UnsafeRawBufferPointer, offset: Int) throws(RTPError) {
        guard body.count >= 8, body.count % 8 == 0 else {
            throw .truncated(
                what: "RTCP payload-specific feedback (FIR)",
                offset: offset,
                needed: max(8, (body.count + 7) / 8 * 8),
                available: body.count
            )
        }
        senderSSRC = body.u32(0)
        mediaSSRC = body.u32(4)
        entries = stride(from: 8, to: body.count, by: 8).map {
            Entry(ssrc: body.u32($0), sequenceNumber: body.u8($0 + 4))
        }
    }

    public var headerCount: UInt8 { Self.format }
    public var bodyLength: Int { 8 + 8 * entries.count }

    public func writeBody(into b: UnsafeMutableRawBufferPointer) {
        b.put32(senderSSRC, at: 0)
        b.put32(mediaSSRC, at: 4)
        for (i, entry) in entries.enumerated() {
            b.put32(entry.ssrc, at: 8 + 8 * i)
            b.put32(UInt32(entry.sequenceNumber) << 24, at: 12 + 8 * i)
        }
    }
}
