import SwiftRTCCore

/// Takes Opus packets out of RTP (RFC 7587): every non-empty payload is one frame.
public enum OpusDepacketizer {
    /// The frame in `packet`, or nil for a padding-only packet.
    public static func frame(from packet: RTPPacket) -> EncodedFrame? {
        guard !packet.isPaddingOnly else { return nil }
        return EncodedFrame(codec: .opus, data: Array(packet.payload), timestamp: packet.timestamp, isKeyframe: true)
    }
}
