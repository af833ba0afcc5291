import CUsrsctp

/// Reads and patches SCTP packets (RFC 9260 §3): the 12-byte common header (ports,
/// verification tag, CRC32c) and the chunks after it, fields big-endian.
enum SctpWire {
    static let headerSize = 12

    /// The chunk types the fuzzers look at.
    enum ChunkType {
        static let data: UInt8 = 0
        static let initiation: UInt8 = 1
        static let initiationAck: UInt8 = 2
        static let sack: UInt8 = 3
        static let heartbeat: UInt8 = 4
        static let abort: UInt8 = 6
        static let shutdown: UInt8 = 7
        static let shutdownAck: UInt8 = 8
        static let error: UInt8 = 9
        static let cookieEcho: UInt8 = 10
        static let cookieAck: UInt8 = 11
        static let shutdownComplete: UInt8 = 14
        static let reconfig: UInt8 = 130
        static let forwardTSN: UInt8 = 192
    }

    /// One chunk: where it starts in the packet, its type, flags and length (its header's
    /// 4 bytes included, padding not).
    struct Chunk {
        var offset: Int
        var type: UInt8
        var flags: UInt8
        var length: Int
    }

    static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 {
        guard at >= 0, at + 2 <= bytes.count else { return 0 }
        return UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
    }

    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        guard at >= 0, at + 4 <= bytes.count else { return 0 }
        return UInt32(u16(bytes, at)) << 16 | UInt32(u16(bytes, at + 2))
    }

    static func put16(_ bytes: inout [UInt8], _ at: Int, _ value: UInt16) {
        guard at >= 0, at + 2 <= bytes.count else { return }
        bytes[at] = UInt8(value >> 8)
        bytes[at + 1] = UInt8(value & 0xFF)
    }

    static func put32(_ bytes: inout [UInt8], _ at: Int, _ value: UInt32) {
        guard at >= 0, at + 4 <= bytes.count else { return }
        put16(&bytes, at, UInt16(value >> 16))
        put16(&bytes, at + 2, UInt16(value & 0xFFFF))
    }

    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    static func be32(_ value: UInt32) -> [UInt8] { be16(UInt16(value >> 16)) + be16(UInt16(value & 0xFFFF)) }

    /// The chunks of `packet` that lie within it, in order; the walk stops at the first whose
    /// length is under 4 or runs past the end.
    static func chunks(_ packet: [UInt8]) -> [Chunk] {
        var chunks: [Chunk] = []
        var offset = headerSize
        while offset + 4 <= packet.count {
            let length = Int(u16(packet, offset + 2))
            guard length >= 4, offset + length <= packet.count else { break }
            chunks.append(Chunk(offset: offset, type: packet[offset], flags: packet[offset + 1], length: length))
            offset += (length + 3) & ~3
        }
        return chunks
    }

    /// The verification tag of the common header.
    static func verificationTag(_ packet: [UInt8]) -> UInt32 { u32(packet, 4) }

    /// Writes the CRC32c of `packet` into its header, as usrsctp computes and checks it (the
    /// checksum field zero while it is computed; usrsctp gives the value in network order).
    static func setChecksum(_ packet: inout [UInt8]) {
        guard packet.count >= headerSize else { return }
        packet.replaceSubrange(8..<12, with: [0, 0, 0, 0])
        let crc = packet.withUnsafeMutableBytes { usrsctp_crc32c($0.baseAddress, $0.count) }
        withUnsafeBytes(of: crc) { packet.replaceSubrange(8..<12, with: $0) }
    }

    /// Whether the checksum in `packet`'s header is right.
    static func hasValidChecksum(_ packet: [UInt8]) -> Bool {
        guard packet.count >= headerSize else { return false }
        var copy = packet
        setChecksum(&copy)
        return copy[8..<12] == packet[8..<12]
    }

    /// A packet from `source` to `destination` with `tag` and these chunks (each
    /// `[type, flags, value...]`, its length filled in and padded), its checksum set.
    static func packet(source: UInt16 = 5000, destination: UInt16 = 5000, tag: UInt32, chunks: [[UInt8]]) -> [UInt8] {
        var packet = be16(source) + be16(destination) + be32(tag) + [0, 0, 0, 0]
        for chunk in chunks {
            let length = UInt16(clamping: chunk.count + 2)
            packet += [chunk[0], chunk[1]] + be16(length) + chunk[2...]
            packet += [UInt8](repeating: 0, count: (4 - packet.count % 4) % 4)
        }
        setChecksum(&packet)
        return packet
    }
}
