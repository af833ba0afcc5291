/// One Ogg page (RFC 3533 section 6):
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// | capture_pattern: "OggS"                                       |
/// | version (0)   | header_type   | granule_position (64, LE)     |
/// |                               | bitstream_serial_number (LE)  |
/// |                               | page_sequence_number (LE)     |
/// |                               | CRC_checksum (LE)             |
/// |                               | page_segments | segment_table |
/// | ...segment_table (page_segments lacing values)... | body ...  |
/// ```
/// header_type: 0x01 continued packet, 0x02 first page (BOS), 0x04 last page (EOS). A lacing
/// value of 255 means the packet goes on in the next segment; a packet ends at a value < 255.
/// The CRC is CRC-32 (polynomial 0x04C11DB7, MSB first, initial 0, no final XOR) over the
/// whole page with the CRC field zeroed.
public struct OggPage: Sendable, Hashable {
    /// The page's header_type bits.
    public struct Flags: OptionSet, Sendable, Hashable {
        /// The header_type byte.
        public let rawValue: UInt8
        /// Flags from the header_type byte.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// The page starts with the continuation of a packet from the previous page.
        public static let continued = Flags(rawValue: 0x01)
        /// First page of a logical bitstream.
        public static let beginningOfStream = Flags(rawValue: 0x02)
        /// Last page of a logical bitstream.
        public static let endOfStream = Flags(rawValue: 0x04)
    }

    /// header_type.
    public var flags: Flags
    /// Codec-defined position after the last packet that ends on this page; -1 if none does.
    public var granulePosition: Int64
    /// Identifies the logical bitstream the page belongs to.
    public var serialNumber: UInt32
    /// Page counter within the logical bitstream.
    public var sequenceNumber: UInt32
    /// Lacing values.
    public var segmentTable: [UInt8]
    /// The segments' bytes.
    public var body: [UInt8]

    /// A page; ``serialized`` computes its CRC.
    public init(
        flags: Flags,
        granulePosition: Int64,
        serialNumber: UInt32,
        sequenceNumber: UInt32,
        segmentTable: [UInt8],
        body: [UInt8]
    ) {
        self.flags = flags
        self.granulePosition = granulePosition
        self.serialNumber = serialNumber
        self.sequenceNumber = sequenceNumber
        self.segmentTable = segmentTable
        self.body = body
    }

    /// The page's bytes, CRC filled in.
    public var serialized: [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(27 + segmentTable.count + body.count)
        bytes.appendASCII("OggS")
        bytes.append(0)
        bytes.append(flags.rawValue)
        bytes.appendLE64(UInt64(bitPattern: granulePosition))
        bytes.appendLE32(serialNumber)
        bytes.appendLE32(sequenceNumber)
        bytes.appendLE32(0)
        bytes.append(UInt8(segmentTable.count))
        bytes += segmentTable
        bytes += body
        let crc = OggCRC.checksum(bytes)
        for i in 0..<4 { bytes[22 + i] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * i)) }
        return bytes
    }

    /// Lacing values for a packet of `length` bytes: 255s then the remainder (0 after an
    /// exact multiple of 255).
    static func lacing(forPacketOfLength length: Int) -> [UInt8] {
        [UInt8](repeating: 255, count: length / 255) + [UInt8(length % 255)]
    }
}

/// Ogg's CRC-32 (see ``OggPage``).
enum OggCRC {
    static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index) << 24
        for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        return crc
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes { crc = (crc << 8) ^ table[Int((crc >> 24) ^ UInt32(byte))] }
        return crc
    }
}
