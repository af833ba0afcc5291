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
        return UnsafeRawBufferPointer(rebasing: bytes[min(offset, bytes.count)..<end])
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

/// The process's open file descriptors, as a leak check for bodies that open sockets (ICE
/// agents, HTTP connections): their teardown ends on other threads after the body returns, so
/// LeakSanitizer's per-input check cannot be used there (see Fuzz/README.md), but every
/// descriptor a run opens must be closed again. One-time setup (thread pools, servers) opens
/// some for good, hence a margin over the count after the first run; a leak of one descriptor
/// per run crosses it within a few hundred runs.
enum Descriptors {
    static let margin = 256
    private static let first = Locked<Int?>(nil)

    static var count: Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0 }

    /// Traps if the process holds more than ``margin`` descriptors beyond what it held after
    /// the first run. Only under libFuzzer (`-DFUZZING`): a replay in `swift test` shares the
    /// process with tests that open and close sockets of their own.
    static func check(_ what: String) {
        #if FUZZING
        let now = count
        let baseline = first.withLock { value in
            if value == nil { value = now }
            return value!
        }
        if now > baseline + margin {
            fatalError("\(now) file descriptors open, \(baseline) after the first run: \(what) leaks descriptors")
        }
        #endif
    }
}

/// A value behind a lock (for the few statics the bodies keep across runs).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
