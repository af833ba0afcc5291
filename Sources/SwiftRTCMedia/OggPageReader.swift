import SwiftRTCCore

/// Reads Ogg pages one by one from a file, checking capture pattern, version and CRC, and
/// reassembles the packets of one logical stream (the first one seen; pages of other
/// streams are skipped).
struct OggPageReader {
    private let file: MediaInputFile
    private var serialNumber: UInt32?
    private var partialPacket: [UInt8] = []
    private var partialPacketOffset = 0
    /// Packets completed by pages read so far, with the granule position of the page that
    /// completed them and whether they were the last packet completed on that page.
    private var ready: [(packet: [UInt8], granule: Int64, offset: Int)] = []

    static let format = "Ogg"
    /// Upper bound on a packet (an Opus packet is at most 120 ms of 510 kbit/s, ~8 KB).
    static let maximumPacketSize = 1 << 20

    init(path: String) throws(MediaFileError) {
        file = try MediaInputFile(path: path)
    }

    /// The next page, `nil` at a clean end of file.
    mutating func readPage() throws(MediaFileError) -> (page: OggPage, offset: Int)? {
        if try file.isAtEnd() { return nil }
        let offset = file.offset
        let headerBytes = try file.read(27, format: Self.format, "page header")
        var header = ByteCursor(headerBytes, format: Self.format)
        guard try header.ascii(4, "capture pattern") == "OggS" else {
            if offset == 0 { throw .badMagic(format: Self.format, expected: "\"OggS\"") }
            throw .invalidField(
                format: Self.format,
                offset: offset,
                field: "capture pattern (lost page sync)",
                value: String(decoding: headerBytes.prefix(4), as: UTF8.self)
            )
        }
        let version = try header.u8("version")
        guard version == 0 else {
            throw .invalidField(
                format: Self.format,
                offset: offset + 4,
                field: "stream structure version",
                value: "\(version)"
            )
        }
        let flags = OggPage.Flags(rawValue: try header.u8("header type"))
        let granule = Int64(bitPattern: try header.le64("granule position"))
        let serial = try header.le32("serial number")
        let sequence = try header.le32("sequence number")
        let crc = try header.le32("CRC")
        let segmentCount = Int(try header.u8("page segments"))
        let segmentTable = try file.read(segmentCount, format: Self.format, "segment table of page at offset \(offset)")
        let bodyLength = segmentTable.reduce(0) { $0 + Int($1) }
        let body = try file.read(bodyLength, format: Self.format, "body of page at offset \(offset)")
        let page = OggPage(
            flags: flags,
            granulePosition: granule,
            serialNumber: serial,
            sequenceNumber: sequence,
            segmentTable: segmentTable,
            body: body
        )
        var check = headerBytes + segmentTable + body
        for i in 22..<26 { check[i] = 0 }
        guard OggCRC.checksum(check) == crc else { throw .checksumMismatch(format: Self.format, offset: offset) }
        return (page, offset)
    }

    /// The next packet of the stream with its page's granule position (-1 unless it is the
    /// last packet ending on its page), `nil` at the end of the file.
    mutating func readPacket() throws(MediaFileError) -> (packet: [UInt8], granule: Int64, offset: Int)? {
        while ready.isEmpty {
            guard let (page, offset) = try readPage() else {
                guard partialPacket.isEmpty else {
                    throw .truncated(
                        format: Self.format,
                        offset: file.offset,
                        expected: "the rest of the packet begun at offset \(partialPacketOffset)"
                    )
                }
                return nil
            }
            if serialNumber == nil { serialNumber = page.serialNumber }
            guard page.serialNumber == serialNumber else { continue }
            if page.flags.contains(.continued) != !partialPacket.isEmpty {
                throw .invalidField(
                    format: Self.format,
                    offset: offset + 5,
                    field: "continued-packet flag",
                    value: page.flags.contains(.continued)
                        ? "set with no packet to continue" : "clear while a packet is unfinished"
                )
            }
            var position = 0
            for lacing in page.segmentTable {
                if partialPacket.isEmpty { partialPacketOffset = offset }
                partialPacket += page.body[position..<position + Int(lacing)]
                position += Int(lacing)
                guard partialPacket.count <= Self.maximumPacketSize else {
                    throw .invalidField(
                        format: Self.format,
                        offset: partialPacketOffset,
                        field: "packet size",
                        value: "over \(Self.maximumPacketSize) bytes"
                    )
                }
                if lacing < 255 {
                    ready.append((partialPacket, -1, partialPacketOffset))
                    partialPacket = []
                }
            }
            if !ready.isEmpty { ready[ready.count - 1].granule = page.granulePosition }
        }
        return ready.removeFirst()
    }
}
