import SwiftRTCCore

/// RTP retransmission payload format (RFC 4588 §4): a resent packet travels on its own SSRC,
/// payload type and sequence numbers, with the original sequence number (OSN) before the
/// original payload.
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         RTP Header                            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |            OSN                |                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               |
/// |                  Original RTP Packet Payload                  |
/// ```
/// Header extensions and CSRCs are copied; padding is not.
public enum RTXPacket {
    /// Writes the RTX packet for `original` into `buffer` and returns its length.
    /// `renamingExtension`: the element with id `from` goes under id `to` (a simulcast
    /// encoding's rtp-stream-id becomes repaired-rtp-stream-id, RFC 8852 §3.2); an id the
    /// block's form cannot hold leaves the element as it was.
    @inlinable
    public static func wrap(
        _ original: RTPPacket,
        payloadType: UInt8,
        ssrc: UInt32,
        sequenceNumber: UInt16,
        renamingExtension: (from: UInt8, to: UInt8)? = nil,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(RTPError) -> Int {
        let length = try rewrite(
            original,
            payloadType: payloadType,
            ssrc: ssrc,
            sequenceNumber: sequenceNumber,
            payload: original.payload,
            osn: original.sequenceNumber,
            into: buffer
        )
        if let renamingExtension { rename(renamingExtension, of: original, in: buffer) }
        return length
    }

    /// Gives the copied header's extension element `from` the id `to` (the header sits at the
    /// same offsets in `buffer` as in `packet`).
    @inlinable
    static func rename(_ ids: (from: UInt8, to: UInt8), of packet: RTPPacket, in buffer: UnsafeMutableRawBufferPointer)
    {
        guard let profile = packet.extensionProfile, let start = packet.bytes.baseAddress else { return }
        let twoByte = profile & 0xFFF0 == RTPHeaderExtensions.twoByteProfile
        guard twoByte ? ids.to > 0 : (1...14).contains(ids.to) else { return }
        for element in packet.extensions where element.id == ids.from {
            guard let data = element.data.baseAddress else { continue }
            let at = data - start - (twoByte ? 2 : 1)
            buffer.put8(twoByte ? ids.to : ids.to << 4 | packet.bytes.u8(at) & 0x0F, at: at)
        }
    }

    /// The original sequence number (OSN) an RTX packet carries, or nil when it has none
    /// (a padding-only probe). It is the peer's word: check it against the stream before use.
    @inlinable
    public static func originalSequenceNumber(of rtx: RTPPacket) -> UInt16? {
        let payload = rtx.payload
        return payload.count >= 2 ? payload.u16(0) : nil
    }

    /// Writes the original packet carried by `rtx` (with the original payload type and SSRC)
    /// into `buffer` and returns its length. Throws for padding-only RTX packets (probes).
    @inlinable
    public static func unwrap(
        _ rtx: RTPPacket,
        originalPayloadType: UInt8,
        originalSSRC: UInt32,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(RTPError) -> Int {
        let payload = rtx.payload
        guard payload.count >= 2 else {
            throw .truncated(
                what: "RTX original sequence number",
                offset: rtx.payloadOffset,
                needed: 2,
                available: payload.count
            )
        }
        return try rewrite(
            rtx,
            payloadType: originalPayloadType,
            ssrc: originalSSRC,
            sequenceNumber: payload.u16(0),
            payload: payload.slice(2, payload.count - 2),
            osn: nil,
            into: buffer
        )
    }

    @inlinable
    static func rewrite(
        _ packet: RTPPacket,
        payloadType: UInt8,
        ssrc: UInt32,
        sequenceNumber: UInt16,
        payload: UnsafeRawBufferPointer,
        osn: UInt16?,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(RTPError) -> Int {
        let header = packet.payloadOffset
        let needed = header + (osn == nil ? 0 : 2) + payload.count
        guard buffer.count >= needed else { throw .bufferTooSmall(needed: needed, available: buffer.count) }
        guard payloadType < 128 else {
            throw .invalidField(what: "RTP payload type", offset: 1, value: Int(payloadType))
        }
        buffer.put(packet.bytes.slice(0, header), at: 0)
        buffer.put8(packet.bytes.u8(0) & ~0x20, at: 0)  // no padding
        buffer.put8(packet.bytes.u8(1) & 0x80 | payloadType, at: 1)
        buffer.put16(sequenceNumber, at: 2)
        buffer.put32(ssrc, at: 8)
        var o = header
        if let osn {
            buffer.put16(osn, at: o)
            o += 2
        }
        buffer.put(payload, at: o)
        return o + payload.count
    }
}
