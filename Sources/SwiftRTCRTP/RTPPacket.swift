import SwiftRTCCore

/// A parsed RTP packet (RFC 3550 §5.1): a view over the packet's bytes, not a copy. Valid as
/// long as the bytes it was parsed from are.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|X|  CC   |M|     PT      |       sequence number         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                           timestamp                           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           synchronization source (SSRC) identifier            |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |            contributing source (CSRC) identifiers             |
/// |                             ....                              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  profile (0xBEDE or 0x100X)   |    length in 32-bit words     |  (if X)
/// |                        extension elements                     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     payload ...               | padding | cnt |  (padding if P)
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct RTPPacket {
    /// The whole packet.
    public let bytes: UnsafeRawBufferPointer
    /// The marker bit (end of a video frame, start of a talkspurt).
    public let marker: Bool
    /// The RTP payload type (7 bits).
    public let payloadType: UInt8
    /// The RTP sequence number.
    public let sequenceNumber: UInt16
    /// The RTP timestamp.
    public let timestamp: UInt32
    /// The synchronization source (SSRC).
    public let ssrc: UInt32
    /// How many CSRCs follow the fixed header.
    public let csrcCount: Int
    /// The header extension profile (0xBEDE one-byte, 0x100X two-byte, or another), if any.
    public let extensionProfile: UInt16?
    @usableFromInline let extensionOffset: Int
    @usableFromInline let extensionLength: Int
    /// Where the payload starts: the header's length.
    public let payloadOffset: Int
    /// The payload's length, without padding.
    public let payloadLength: Int
    /// Padding bytes at the end, including the count byte (0 if the P bit is clear).
    public let paddingLength: Int

    /// Parses `bytes` as an RTP packet, checking every length against the bytes there are.
    /// The extension elements of the one-byte and two-byte forms are checked too.
    @inlinable
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTPError) {
        let count = bytes.count
        guard count >= 12 else {
            throw .truncated(what: "RTP fixed header", offset: 0, needed: 12, available: count)
        }
        let first = bytes.u8(0)
        guard first >> 6 == 2 else {
            throw .invalidField(what: "RTP version", offset: 0, value: Int(first >> 6))
        }
        let second = bytes.u8(1)
        self.bytes = bytes
        marker = second & 0x80 != 0
        payloadType = second & 0x7F
        sequenceNumber = bytes.u16(2)
        timestamp = bytes.u32(4)
        ssrc = bytes.u32(8)
        csrcCount = Int(first & 0x0F)
        var offset = 12 + 4 * csrcCount
        guard offset <= count else {
            throw .truncated(what: "RTP CSRC list", offset: 12, needed: 4 * csrcCount, available: count - 12)
        }
        if first & 0x10 != 0 {
            guard offset + 4 <= count else {
                throw .truncated(what: "RTP header extension", offset: offset, needed: 4, available: count - offset)
            }
            let profile = bytes.u16(offset)
            let length = Int(bytes.u16(offset + 2)) * 4
            guard offset + 4 + length <= count else {
                throw .truncated(
                    what: "RTP header extension elements",
                    offset: offset + 4,
                    needed: length,
                    available: count - offset - 4
                )
            }
            extensionProfile = profile
            extensionOffset = offset + 4
            extensionLength = length
            offset += 4 + length
            try RTPHeaderExtensions.validate(
                bytes.slice(extensionOffset, length),
                profile: profile,
                at: extensionOffset
            )
        } else {
            extensionProfile = nil
            extensionOffset = offset
            extensionLength = 0
        }
        payloadOffset = offset
        var padding = 0
        if first & 0x20 != 0 {
            guard count > offset else {
                throw .truncated(what: "RTP padding", offset: offset, needed: 1, available: 0)
            }
            padding = Int(bytes.u8(count - 1))
            guard padding >= 1, padding <= count - offset else {
                throw .invalidField(what: "RTP padding count", offset: count - 1, value: padding)
            }
        }
        paddingLength = padding
        payloadLength = count - offset - padding
    }

    /// The payload, without header and padding.
    @inlinable
    public var payload: UnsafeRawBufferPointer { bytes.slice(payloadOffset, payloadLength) }

    /// Whether the packet carries only padding (Chromium's bandwidth probes, sequence fillers).
    @inlinable
    public var isPaddingOnly: Bool { payloadLength == 0 }

    /// The CSRC at `index` (0..<``csrcCount``).
    @inlinable
    public func csrc(at index: Int) -> UInt32 {
        precondition(index >= 0 && index < csrcCount, "CSRC index out of range")
        return bytes.u32(12 + 4 * index)
    }

    /// The header extension elements (empty if there are none or the profile is not RFC 8285's).
    @inlinable
    public var extensions: RTPHeaderExtensions {
        RTPHeaderExtensions(bytes: bytes.slice(extensionOffset, extensionLength), profile: extensionProfile ?? 0)
    }

    /// The data of the header extension element with `id`, if present.
    @inlinable
    public func extensionData(id: UInt8) -> UnsafeRawBufferPointer? {
        for element in extensions where element.id == id { return element.data }
        return nil
    }

    /// The typed value of the header extension element with `id`, if present (throws if it is
    /// present but malformed).
    @inlinable
    public func extensionValue<E: RTPHeaderExtension>(_ type: E.Type, id: UInt8) throws(RTPError) -> E? {
        guard let data = extensionData(id: id) else { return nil }
        return try E(parsing: data)
    }
}
