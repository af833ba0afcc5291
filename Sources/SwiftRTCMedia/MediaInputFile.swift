import Foundation
import Synchronization

/// A buffered sequential reader for the streaming parsers (Y4M, IVF, Ogg), which read a file
/// frame by frame instead of loading it. `offset` is the file position of the next byte, for
/// error messages. Sendable (its state is behind a lock), so the readers built on it are
/// too: a copy of a reader shares its file position, as two handles on one file would.
final class MediaInputFile: Sendable {
    let path: String
    private let handle: FileHandle

    private struct State: ~Copyable {
        var buffer: [UInt8] = []
        var bufferStart = 0
        var reachedEnd = false
        /// File offset of the next unread byte.
        var offset = 0
    }

    private let state = Mutex(State())

    init(path: String) throws(MediaFileError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .io(path: path, operation: "open", errno: errno == 0 ? ENOENT : errno)
        }
        self.path = path
        self.handle = handle
    }

    deinit { try? handle.close() }

    /// File offset of the next unread byte.
    var offset: Int { state.withLock { $0.offset } }

    /// Makes at least `count` bytes available unless the file ends first; returns how many are.
    private func fill(_ count: Int, _ state: inout State) throws(MediaFileError) -> Int {
        while state.buffer.count - state.bufferStart < count, !state.reachedEnd {
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 1 << 20) } catch {
                throw .io(path: path, operation: "read", errno: EIO)
            }
            guard let chunk, !chunk.isEmpty else {
                state.reachedEnd = true
                break
            }
            if state.bufferStart > 0 {
                state.buffer.removeFirst(state.bufferStart)
                state.bufferStart = 0
            }
            state.buffer.append(contentsOf: chunk)
        }
        return state.buffer.count - state.bufferStart
    }

    /// Whether the file has no more bytes.
    func isAtEnd() throws(MediaFileError) -> Bool {
        try state.withLock { (state) throws(MediaFileError) in try fill(1, &state) == 0 }
    }

    /// Exactly `count` bytes, or `.truncated` naming `what` (with `format`) if the file ends.
    func read(_ count: Int, format: String, _ what: String) throws(MediaFileError) -> [UInt8] {
        try state.withLock { (state) throws(MediaFileError) in
            guard count >= 0, try fill(count, &state) >= count else {
                throw .truncated(
                    format: format,
                    offset: state.offset + (state.buffer.count - state.bufferStart),
                    expected: "\(what) (\(count) bytes at offset \(state.offset))"
                )
            }
            defer {
                state.bufferStart += count
                state.offset += count
            }
            return Array(state.buffer[state.bufferStart..<state.bufferStart + count])
        }
    }

    /// Bytes up to (not including) the next `\n`, at most `limit` long.
    func readLine(limit: Int, format: String, _ what: String) throws(MediaFileError) -> [UInt8] {
        try state.withLock { (state) throws(MediaFileError) in
            var scanned = 0
            while true {
                let available = try fill(scanned + 1, &state)
                guard available > scanned else {
                    throw .truncated(
                        format: format,
                        offset: state.offset + available,
                        expected: "\(what) ending in a newline"
                    )
                }
                if state.buffer[state.bufferStart + scanned] == 0x0A {
                    defer {
                        state.bufferStart += scanned + 1
                        state.offset += scanned + 1
                    }
                    return Array(state.buffer[state.bufferStart..<state.bufferStart + scanned])
                }
                scanned += 1
                guard scanned <= limit else {
                    throw .invalidField(
                        format: format,
                        offset: state.offset,
                        field: what,
                        value: "longer than \(limit) bytes"
                    )
                }
            }
        }
    }
}
