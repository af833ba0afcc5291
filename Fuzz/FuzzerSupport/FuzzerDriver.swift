import Foundation

/// A fuzzer's one-input body: takes any bytes, and traps only on a bug it checks for.
public typealias FuzzTarget = (UnsafeRawBufferPointer) -> Void

/// The entry point of `swiftrtc-fuzz`, the one executable for every fuzzer of `Fuzz/`:
///
/// ```
/// swiftrtc-fuzz <Fuzzer> [libFuzzer flags] [corpus folder...]   (built with -DFUZZING)
/// swiftrtc-fuzz <Fuzzer> <file>...                               (any other build: replay)
/// ```
///
/// The fuzzer is named by the first argument, or by `SWIFTRTC_FUZZER` in the environment
/// (where the first argument puts it, so that the processes libFuzzer starts itself for
/// `-fork`, `-merge` or `-minimize_crash`, which get the command line without the name, run
/// the same body). Built with `-DFUZZING` (and `-sanitize=fuzzer`), this module exports
/// `LLVMFuzzerTestOneInput` and ``main(_:)`` hands the rest of the command line to
/// libFuzzer's driver. Otherwise ``main(_:)`` replays the files given as arguments (crash
/// reproducers, a corpus), so ordinary builds compile and link the fuzzers.
public enum FuzzerDriver {
    /// The environment variable naming the fuzzer.
    public static let environmentName = "SWIFTRTC_FUZZER"

    /// Runs the body of `targets` the command line names under libFuzzer (`-DFUZZING`), or on
    /// each file named after it, printing `ok <path>` after each; exits 1 if a file cannot be
    /// read, 2 if no known fuzzer is named.
    public static func main(_ targets: [(name: String, body: FuzzTarget)]) -> Never {
        var arguments = CommandLine.arguments
        var skip = 0
        if arguments.count > 1, targets.contains(where: { $0.name == arguments[1] }) {
            setenv(environmentName, arguments[1], 1)
            arguments.remove(at: 1)
            skip = 1
        }
        let name = ProcessInfo.processInfo.environment[environmentName]
        guard let target = targets.first(where: { $0.name == name })?.body else {
            FileHandle.standardError.write(
                Data(
                    """
                    usage: swiftrtc-fuzz <fuzzer> [libFuzzer flags] [corpus folder...]   (or files to replay)
                    fuzzers: \(targets.map(\.name).joined(separator: " "))

                    """.utf8
                )
            )
            exit(2)
        }
        #if FUZZING
        fuzzTarget = target
        // libFuzzer's driver gets the command line without the fuzzer's name.
        var argc = CommandLine.argc - CInt(skip)
        let argv = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: Int(argc) + 1)
        argv[0] = CommandLine.unsafeArgv[0]
        for index in 1..<Int(argc) { argv[index] = CommandLine.unsafeArgv[index + skip] }
        argv[Int(argc)] = nil
        var driverArgv = argv
        exit(LLVMFuzzerRunDriver(&argc, &driverArgv, LLVMFuzzerTestOneInput))
        #else
        _ = skip
        for path in arguments.dropFirst() {
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
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
#endif
