import Foundation

/// File access for the readers and writers: readers load the whole file and parse it in
/// memory (media files a bot plays are small; parsing stays total and simple), writers append
/// through a POSIX descriptor so a header can be patched in place while the file grows.
enum MediaFile {
    static func readAll(_ path: String) throws(MediaFileError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .io(path: path, operation: "read", errno: errno == 0 ? ENOENT : errno)
        }
        return [UInt8](data)
    }
}

/// An append-mostly output file with in-place patching (header fix-ups) and durable flushes.
final class MediaOutputFile {
    let path: String
    private var descriptor: Int32
    /// Bytes written so far (the end of the file).
    private(set) var size: Int = 0

    init(path: String) throws(MediaFileError) {
        self.path = path
        descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .io(path: path, operation: "create", errno: errno) }
    }

    deinit { if descriptor >= 0 { _ = closeDescriptor(descriptor) } }

    var isOpen: Bool { descriptor >= 0 }

    func append(_ bytes: [UInt8]) throws(MediaFileError) {
        try write(bytes, at: size)
        size += bytes.count
    }

    /// Overwrites `bytes` at `offset` (which must lie inside what is written already, or at its end).
    func write(_ bytes: [UInt8], at offset: Int) throws(MediaFileError) {
        guard descriptor >= 0 else { throw .unusable(format: path, reason: "file is closed") }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + done, bytes.count - done, off_t(offset + done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, operation: "write", errno: errno)
            }
            done += n
        }
    }

    /// Cuts the file back to `length` bytes (used by silence trimming).
    func truncate(to length: Int) throws(MediaFileError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw .io(path: path, operation: "truncate", errno: errno) }
        size = length
    }

    func close() throws(MediaFileError) {
        guard descriptor >= 0 else { return }
        let result = closeDescriptor(descriptor)
        descriptor = -1
        guard result == 0 else { throw .io(path: path, operation: "close", errno: errno) }
    }
}

private func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }

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
