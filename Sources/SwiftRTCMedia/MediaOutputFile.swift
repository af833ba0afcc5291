import Foundation

/// An append-mostly output file with in-place patching (header fix-ups) and durable flushes.
final class MediaOutputFile {
    let path: String
    private var descriptor: Int32
    /// Bytes written so far (the end of the file).
    private(set) var size: Int = 0

    init(path: String) throws(MediaFileError) {
        self.path = path
        descriptor = try Self.openForWriting(path)
    }

    /// Opens `path` for writing, emptied, created readable by this user only (0600), as a
    /// recording of a call should be. A symbolic link there is refused (`O_NOFOLLOW`: ELOOP),
    /// and so is a file of another user (someone who could write to the folder put it there
    /// to read what is recorded), so that a recording never lands where someone else chose.
    static func openForWriting(_ path: String) throws(MediaFileError) -> Int32 {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .io(path: path, operation: "create", errno: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_uid == geteuid(), (status.st_mode & S_IFMT) == S_IFREG else {
            _ = closeDescriptor(descriptor)
            throw .unusable(format: path, reason: "not a regular file of this user: refused as an output")
        }
        return descriptor
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
            let n = bytes.withUnsafeBytes {
                pwrite(descriptor, $0.baseAddress! + done, bytes.count - done, off_t(offset + done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, operation: "write", errno: errno)
            }
            done += n
        }
    }

    /// Cuts the file back to `length` bytes (used by silence trimming).
    func truncate(to length: Int) throws(MediaFileError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            throw .io(path: path, operation: "truncate", errno: errno)
        }
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
