import SwiftRTCCore

/// Tells RTP from RTCP on a shared port (RFC 5761 §4): RTCP packet types 192-223 sit where
/// RTP's marker bit and payload type are.
public enum RTPDemultiplexer {
    /// Whether `bytes` look like RTCP rather than RTP (both need version 2 in the first byte).
    @inlinable
    public static func isRTCP(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 2 && bytes.u8(0) >> 6 == 2 && (192...223).contains(bytes.u8(1))
    }

    /// Whether `bytes` could be RTP or RTCP at all (RFC 7983: first byte 128-191).
    @inlinable
    public static func isRTPOrRTCP(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 2 && (128...191).contains(bytes.u8(0))
    }
}
