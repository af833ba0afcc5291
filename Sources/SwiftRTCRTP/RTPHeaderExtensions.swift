import SwiftRTCCore

/// The header extension elements of an RTP packet (RFC 8285): a view, iterated without copying.
///
/// One-byte form (profile 0xBEDE), ID 1-14, length 1-16 stored as L-1; ID 0 is a padding byte,
/// ID 15 ends the block:
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |       0xBE    |    0xDE       |           length=3            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ID   | L=0   |     data      |  ID   |  L=1  |   data...
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// Two-byte form (profile 0x100 in the upper 12 bits, 4 application bits), ID 1-255, length
/// 0-255; a zero byte between elements is padding:
/// ```
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |       0x10    |    0x00       |           length=3            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |      ID       |     L=0       |     ID        |     L=1       |
/// |       data    |    0 (pad)    |       ID      |      L=4      |
/// ```
public struct RTPHeaderExtensions: Sequence {
    /// The one-byte form's profile.
    public static let oneByteProfile: UInt16 = 0xBEDE
    /// The two-byte form's profile (upper 12 bits; the low 4 are application bits).
    public static let twoByteProfile: UInt16 = 0x1000

    /// One element: its ID and data.
    public struct Element {
        /// The element's ID or data.
        public let id: UInt8
        /// The element's ID or data.
        public let data: UnsafeRawBufferPointer

        @usableFromInline
        init(id: UInt8, data: UnsafeRawBufferPointer) {
            self.id = id
            self.data = data
        }
    }

    @usableFromInline let bytes: UnsafeRawBufferPointer
    @usableFromInline let twoByte: Bool
    @usableFromInline let known: Bool

    @inlinable
    init(bytes: UnsafeRawBufferPointer, profile: UInt16) {
        self.bytes = bytes
        twoByte = profile & 0xFFF0 == Self.twoByteProfile
        known = twoByte || profile == Self.oneByteProfile
    }

    /// Iterates the elements in wire order.
    @inlinable
    public func makeIterator() -> Iterator {
        Iterator(bytes: known ? bytes : UnsafeRawBufferPointer(start: nil, count: 0), twoByte: twoByte)
    }

    /// Iterates the elements without copying.
    public struct Iterator: IteratorProtocol {
        @usableFromInline let bytes: UnsafeRawBufferPointer
        @usableFromInline let twoByte: Bool
        @usableFromInline var offset = 0

        @inlinable
        init(bytes: UnsafeRawBufferPointer, twoByte: Bool) {
            self.bytes = bytes
            self.twoByte = twoByte
        }

        /// The next element, nil after the last or at a malformed one.
        @inlinable
        public mutating func next() -> Element? {
            while offset < bytes.count {
                let first = bytes.u8(offset)
                // Padding: a zero byte in both forms; in the one-byte form any ID 0 byte
                // (libwebrtc skips it alike).
                if first == 0 || (!twoByte && first >> 4 == 0) {
                    offset += 1
                    continue
                }
                let id: UInt8, length: Int, start: Int
                if twoByte {
                    guard offset + 2 <= bytes.count else { return nil }
                    id = first
                    length = Int(bytes.u8(offset + 1))
                    start = offset + 2
                } else {
                    id = first >> 4
                    if id == 15 { return nil }  // reserved: stop processing
                    length = Int(first & 0x0F) + 1
                    start = offset + 1
                }
                guard start + length <= bytes.count else { return nil }
                offset = start + length
                return Element(id: id, data: bytes.slice(start, length))
            }
            return nil
        }
    }

    /// Checks that every element lies inside the block (`at` is the block's offset in the packet).
    @inlinable
    static func validate(_ bytes: UnsafeRawBufferPointer, profile: UInt16, at base: Int) throws(RTPError) {
        let twoByte = profile & 0xFFF0 == twoByteProfile
        guard twoByte || profile == oneByteProfile else { return }
        var offset = 0
        while offset < bytes.count {
            let first = bytes.u8(offset)
            if first == 0 || (!twoByte && first >> 4 == 0) {
                offset += 1
                continue
            }
            let length: Int, start: Int
            if twoByte {
                guard offset + 2 <= bytes.count else {
                    throw .truncated(
                        what: "RTP two-byte extension element header",
                        offset: base + offset,
                        needed: 2,
                        available: bytes.count - offset
                    )
                }
                length = Int(bytes.u8(offset + 1))
                start = offset + 2
            } else {
                if first >> 4 == 15 { return }
                length = Int(first & 0x0F) + 1
                start = offset + 1
            }
            guard start + length <= bytes.count else {
                throw .truncated(
                    what: "RTP header extension element",
                    offset: base + start,
                    needed: length,
                    available: bytes.count - start
                )
            }
            offset = start + length
        }
    }
}
