import Foundation

/// A fuzzer's one-input body: takes any bytes, and traps only on a bug it checks for.
public typealias FuzzTarget = (UnsafeRawBufferPointer) -> Void

/// The entry point every fuzzer in `Fuzz/` shares, so each holds only its one-input body:
///
/// ```swift
/// @main enum RTPFuzzerMain { static func main() { FuzzerDriver.main(fuzzRTP) } }
/// ```
///
/// Built with `-DFUZZING` (and `-sanitize=fuzzer`), this module exports
/// `LLVMFuzzerTestOneInput` and ``main(_:)`` hands the command line to libFuzzer's driver.
/// Otherwise ``main(_:)`` replays the files given as arguments (crash reproducers, a corpus),
/// so ordinary builds compile and link every fuzzer.
public enum FuzzerDriver {
    /// Runs `target` under libFuzzer (`-DFUZZING`), or on each file named on the command line,
    /// printing `ok <path>` after each; exits 1 if a file cannot be read.
    public static func main(_ target: @escaping FuzzTarget) -> Never {
        #if FUZZING
        fuzzTarget = target
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput))
        #else
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                exit(1)
            }
            Array(data).withUnsafeBytes { target($0) }
            print("ok \(path)")
        }
        exit(0)
        #endif
    }
}

#if FUZZING
/// The body libFuzzer's callback runs; set once by ``FuzzerDriver/main(_:)`` before the
/// driver starts, read only from libFuzzer's thread after that.
nonisolated(unsafe) private var fuzzTarget: FuzzTarget?

/// libFuzzer's per-input callback (also what `-sanitize=fuzzer`'s link expects to find).
@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzTarget?(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// libFuzzer's driver, `int LLVMFuzzerRunDriver(int *argc, char ***argv,
/// int (*cb)(const uint8_t *, size_t))`. SwiftPM links an executable to its module's entry
/// point, so libFuzzer's own `main` is not used; this is how the command line reaches it.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
#endif
