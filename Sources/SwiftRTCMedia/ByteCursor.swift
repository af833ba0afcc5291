/// A bounds-checked little/big-endian reader over an in-memory file, used by every file
/// parser here: each read either returns a value or throws ``MediaFileError/truncated``,
/// so no input-derived index can trap.
struct ByteCursor {
    let bytes: [UInt8]
    let format: String
    private(set) var offset: Int

    init(_ bytes: [UInt8], format: String, offset: Int = 0) {
        self.bytes = bytes
        self.format = format
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }
    var isAtEnd: Bool { offset >= bytes.count }

    mutating func require(_ count: Int, _ what: String) throws(MediaFileError) {
        guard count >= 0, count <= remaining else {
            throw .truncated(
                format: format,
                offset: bytes.count,
                expected: "\(what) (\(count) bytes at offset \(offset))"
            )
        }
    }

    mutating func skip(_ count: Int, _ what: String) throws(MediaFileError) {
        try require(count, what)
        offset += count
    }

    mutating func seek(to position: Int) { offset = min(max(0, position), bytes.count) }

    mutating func bytes(_ count: Int, _ what: String) throws(MediaFileError) -> ArraySlice<UInt8> {
        try require(count, what)
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func u8(_ what: String) throws(MediaFileError) -> UInt8 {
        try require(1, what)
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func le16(_ what: String) throws(MediaFileError) -> UInt16 {
        try require(2, what)
        defer { offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    mutating func le32(_ what: String) throws(MediaFileError) -> UInt32 {
        try require(4, what)
        defer { offset += 4 }
        return (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
    }

    mutating func le64(_ what: String) throws(MediaFileError) -> UInt64 {
        try require(8, what)
        defer { offset += 8 }
        return (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }

    /// `count` bytes as ASCII text (non-ASCII bytes shown as `?`), for magic checks.
    mutating func ascii(_ count: Int, _ what: String) throws(MediaFileError) -> String {
        String(decoding: try bytes(count, what).map { $0 < 0x80 ? $0 : 0x3F }, as: UTF8.self)
    }
}

/// Little-endian appenders for the writers.
extension Array where Element == UInt8 {
    mutating func appendLE16(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }
    mutating func appendLE32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
    mutating func appendLE64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
    mutating func appendASCII(_ text: String) { append(contentsOf: Array(text.utf8)) }
}
