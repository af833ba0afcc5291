import SwiftRTCCore

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
        return bytes.withUnsafeBytes { $0.le16(offset) }
    }

    mutating func le32(_ what: String) throws(MediaFileError) -> UInt32 {
        try require(4, what)
        defer { offset += 4 }
        return bytes.withUnsafeBytes { $0.le32(offset) }
    }

    mutating func le64(_ what: String) throws(MediaFileError) -> UInt64 {
        try require(8, what)
        defer { offset += 8 }
        return bytes.withUnsafeBytes { $0.le64(offset) }
    }

    /// `count` bytes as ASCII text (non-ASCII bytes shown as `?`), for magic checks.
    mutating func ascii(_ count: Int, _ what: String) throws(MediaFileError) -> String {
        String(decoding: try bytes(count, what).map { $0 < 0x80 ? $0 : 0x3F }, as: UTF8.self)
    }
}

/// ASCII text for the writers (the little-endian appenders are SwiftRTCCore's).
extension Array where Element == UInt8 {
    mutating func appendASCII(_ text: String) { append(contentsOf: Array(text.utf8)) }
}
