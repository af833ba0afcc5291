import Foundation

/// Reads values off the front of a fuzzer's input, big-endian; past the end every read gives
/// zeros or nothing, so a body never has to check the length first.
struct FuzzInput {
    let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Whether every byte has been read.
    var isAtEnd: Bool { offset >= bytes.count }
    /// Bytes left.
    var remaining: Int { max(0, bytes.count - offset) }

    mutating func u8() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() -> UInt16 { UInt16(u8()) << 8 | UInt16(u8()) }

    mutating func u32() -> UInt32 { UInt32(u16()) << 16 | UInt32(u16()) }

    /// The next `count` bytes (fewer at the end).
    mutating func bytes(_ count: Int) -> UnsafeRawBufferPointer {
        let end = offset + min(max(0, count), remaining)
        defer { offset = end }
        return UnsafeRawBufferPointer(rebasing: bytes[min(offset, bytes.count) ..< end])
    }

    /// A chunk with a 16-bit length in front (fewer bytes at the end).
    mutating func chunk() -> UnsafeRawBufferPointer { bytes(Int(u16())) }

    /// Everything not read yet.
    mutating func rest() -> UnsafeRawBufferPointer { bytes(remaining) }
}

/// Runs async work to its end from the fuzzer's own (synchronous) thread, which libFuzzer or
/// the replay loop owns: never from a thread of the cooperative pool, which it would block.
func runBlocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let result = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        result.value = await work()
        done.signal()
    }
    done.wait()
    return result.value!
}

/// Where ``runBlocking(_:)``'s task leaves its result: written once before the semaphore is
/// signalled, read once after the wait, so never at the same time.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}

/// Files for the bodies that feed readers taking a path or recorders writing one: one folder
/// per process, removed when the process exits normally.
enum ScratchFiles {
    static let folder: String = {
        let path = NSTemporaryDirectory() + "swiftrtc-fuzz-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "swiftrtc-fuzz-\(getpid())") }
        return path
    }()

    /// The path of scratch file `name` (the same for every run of the process).
    static func path(_ name: String) -> String { folder + "/" + name }

    /// Writes `bytes` to scratch file `name` and returns its path.
    static func write(_ bytes: UnsafeRawBufferPointer, to name: String) -> String {
        let path = path(name)
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            fatalError("cannot write the scratch file \(path)")
        }
        return path
    }
}
