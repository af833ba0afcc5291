import SwiftRTCCore

/// An RTCP source description (RFC 3550 §6.5, PT 202): chunks of items per source.
/// ```
/// |V=2|P|    SC   |  PT=SDES=202  |             length            |
/// |                          SSRC/CSRC_1                          |
/// |     type      |    length     |  text ... | type=0 (end) | pad to word
/// |                          SSRC/CSRC_2 ...                      |
/// ```
public struct SourceDescription: RTCPPacketBody {
    /// The RTCP packet type (PT) of this packet.
    public static let packetType = RTCPPacketType.sourceDescription

    /// One item: its type (1 CNAME, 2 NAME, ... 8 PRIV) and text.
    public struct Item: Sendable, Hashable {
        /// The CNAME item type.
        public static let cname: UInt8 = 1
        /// The item type (1 CNAME ... 8 PRIV).
        public var type: UInt8
        /// The item text (UTF-8, up to 255 bytes).
        public var text: [UInt8]
        /// Creates the value from its fields.
        public init(type: UInt8, text: [UInt8]) {
            self.type = type
            self.text = Array(text.prefix(255))
        }
        /// Creates the value from its fields.
        public init(type: UInt8, text: String) { self.init(type: type, text: Array(text.utf8)) }
        /// The text as a string.
        public var string: String { String(decoding: text, as: UTF8.self) }
    }

    /// The items about one source.
    public struct Chunk: Sendable, Hashable {
        /// The SSRC or CSRC described.
        public var source: UInt32
        /// The items, in order.
        public var items: [Item]
        /// Creates the value from its fields.
        public init(source: UInt32, items: [Item]) {
            self.source = source
            self.items = items
        }
        var length: Int { (4 + items.reduce(0) { $0 + 2 + min($1.text.count, 255) } + 1 + 3) / 4 * 4 }
    }

    /// The chunks, at most 31 are written.
    public var chunks: [Chunk]

    /// Creates the value from its fields.
    public init(chunks: [Chunk]) { self.chunks = chunks }

    public init(count: UInt8, body: UnsafeRawBufferPointer, offset: Int) throws(RTPError) {
        chunks = []
        var o = 0
        for _ in 0..<Int(count) {
            guard o + 4 <= body.count else {
                throw .truncated(what: "RTCP SDES source", offset: offset + o, needed: 4, available: body.count - o)
            }
            var chunk = Chunk(source: body.u32(o), items: [])
            o += 4
            while true {
                guard o < body.count else {
                    throw .truncated(what: "RTCP SDES item", offset: offset + o, needed: 1, available: 0)
                }
                let type = body.u8(o)
                if type == 0 { break }
                guard o + 2 <= body.count else {
                    throw .truncated(what: "RTCP SDES item", offset: offset + o, needed: 2, available: body.count - o)
                }
                let length = Int(body.u8(o + 1))
                guard o + 2 + length <= body.count else {
                    throw .truncated(
                        what: "RTCP SDES item",
                        offset: offset + o,
                        needed: 2 + length,
                        available: body.count - o
                    )
                }
                chunk.items.append(Item(type: type, text: Array(body.slice(o + 2, length))))
                o += 2 + length
            }
            o = (o + 1 + 3) / 4 * 4  // the end item, then padding to the next word
            chunks.append(chunk)
        }
    }

    public var headerCount: UInt8 { UInt8(min(chunks.count, 31)) }
    public var bodyLength: Int { chunks.prefix(31).reduce(0) { $0 + $1.length } }

    public func writeBody(into b: UnsafeMutableRawBufferPointer) {
        var o = 0
        for chunk in chunks.prefix(31) {
            let end = o + chunk.length
            b.put32(chunk.source, at: o)
            o += 4
            for item in chunk.items {
                b.put8(item.type, at: o)
                let text = item.text.prefix(255)
                b.put8(UInt8(text.count), at: o + 1)
                for (i, byte) in text.enumerated() { b.put8(byte, at: o + 2 + i) }
                o += 2 + text.count
            }
            while o < end {
                b.put8(0, at: o)
                o += 1
            }
        }
    }
}
