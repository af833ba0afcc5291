import Foundation

/// A buffered sequential reader for the streaming parsers (Y4M, IVF, Ogg), which read a file
/// frame by frame instead of loading it. `offset` is the file position of the next byte, for
/// error messages.
final class MediaInputFile {
    let path: String
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var bufferStart = 0
    private var reachedEnd = false
    /// File offset of the next unread byte.
    private(set) var offset = 0

    init(path: String) throws(MediaFileError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .io(path: path, operation: "open", errno: errno == 0 ? ENOENT : errno)
        }
        self.path = path
        self.handle = handle
    }

    deinit { try? handle.close() }

    /// Makes at least `count` bytes available unless the file ends first; returns how many are.
    private func fill(_ count: Int) throws(MediaFileError) -> Int {
        while buffer.count - bufferStart < count, !reachedEnd {
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 1 << 20) } catch { throw .io(path: path, operation: "read", errno: EIO) }
            guard let chunk, !chunk.isEmpty else { reachedEnd = true; break }
            if bufferStart > 0 { buffer.removeFirst(bufferStart); bufferStart = 0 }
            buffer.append(contentsOf: chunk)
        }
        return buffer.count - bufferStart
    }

    /// Whether the file has no more bytes.
    func isAtEnd() throws(MediaFileError) -> Bool { try fill(1) == 0 }

    /// Exactly `count` bytes, or `.truncated` naming `what` (with `format`) if the file ends.
    func read(_ count: Int, format: String, _ what: String) throws(MediaFileError) -> [UInt8] {
        guard count >= 0, try fill(count) >= count else {
            throw .truncated(format: format, offset: offset + (buffer.count - bufferStart), expected: "\(what) (\(count) bytes at offset \(offset))")
        }
        defer { bufferStart += count; offset += count }
        return Array(buffer[bufferStart..<bufferStart + count])
    }

    /// Bytes up to (not including) the next `\n`, at most `limit` long.
    func readLine(limit: Int, format: String, _ what: String) throws(MediaFileError) -> [UInt8] {
        var scanned = 0
        while true {
            let available = try fill(scanned + 1)
            guard available > scanned else {
                throw .truncated(format: format, offset: offset + available, expected: "\(what) ending in a newline")
            }
            if buffer[bufferStart + scanned] == 0x0A {
                defer { bufferStart += scanned + 1; offset += scanned + 1 }
                return Array(buffer[bufferStart..<bufferStart + scanned])
            }
            scanned += 1
            guard scanned <= limit else {
                throw .invalidField(format: format, offset: offset, field: what, value: "longer than \(limit) bytes")
            }
        }
    }
}
