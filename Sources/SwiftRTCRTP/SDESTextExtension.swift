import SwiftRTCCore

/// The text header extensions of RFC 8843 (`sdes:mid`) and RFC 8852 (`sdes:rtp-stream-id`,
/// `sdes:repaired-rtp-stream-id`): UTF-8 identifiers of 1-255 bytes (1-16 in the one-byte form).
/// Identifiers up to 15 bytes are small strings and need no allocation.
public protocol SDESTextExtension: RTPHeaderExtension, Sendable, Hashable {
    var value: String { get }
    init(value: String)
}

extension SDESTextExtension {
    @inlinable
    public init(parsing data: UnsafeRawBufferPointer) throws(RTPError) {
        guard data.count > 0 else {
            throw .truncated(what: "SDES header extension", offset: 0, needed: 1, available: 0)
        }
        // Some senders pad the identifier with NULs to a word boundary.
        var end = data.count
        while end > 0, data.u8(end - 1) == 0 { end -= 1 }
        self.init(value: String(decoding: data.slice(0, end), as: UTF8.self))
    }

    @inlinable
    public var encodedLength: Int { value.utf8.count }

    @inlinable
    public func encode(into buffer: UnsafeMutableRawBufferPointer) {
        var i = 0
        for byte in value.utf8 {
            buffer.put8(byte, at: i)
            i += 1
        }
    }
}
