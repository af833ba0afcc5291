import SwiftRTCCore

/// Walks the packets of a compound or reduced-size RTCP datagram without copying, checking
/// version, lengths and padding.
public struct RTCPCompoundIterator {
    @usableFromInline let bytes: UnsafeRawBufferPointer
    @usableFromInline var offset = 0

    /// Creates the value from its fields.
    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The next packet, nil at the end; throws on a malformed header.
    @inlinable
    public mutating func next() throws(RTPError) -> RTCPPacketView? {
        guard offset < bytes.count else { return nil }
        let left = bytes.count - offset
        guard left >= 4 else { throw .truncated(what: "RTCP header", offset: offset, needed: 4, available: left) }
        let first = bytes.u8(offset)
        guard first >> 6 == 2 else { throw .invalidField(what: "RTCP version", offset: offset, value: Int(first >> 6)) }
        let length = (Int(bytes.u16(offset + 2)) + 1) * 4
        guard length <= left else {
            throw .truncated(what: "RTCP packet", offset: offset, needed: length, available: left)
        }
        var bodyLength = length - 4
        if first & 0x20 != 0 {
            let padding = Int(bytes.u8(offset + length - 1))
            guard padding >= 1, padding <= bodyLength else {
                throw .invalidField(what: "RTCP padding count", offset: offset + length - 1, value: padding)
            }
            bodyLength -= padding
        }
        let view = RTCPPacketView(
            offset: offset,
            count: first & 0x1F,
            packetType: bytes.u8(offset + 1),
            body: bytes.slice(offset + 4, bodyLength)
        )
        offset += length
        return view
    }
}

extension RTCPPacketBody {
    @inlinable
    static func require(
        _ body: UnsafeRawBufferPointer,
        _ length: Int,
        _ what: StaticString,
        _ offset: Int
    ) throws(RTPError) {
        guard body.count >= length else {
            throw .truncated(what: what, offset: offset, needed: length, available: body.count)
        }
    }
}
