// libFuzzer entry point for the SDP parser, writer and JSEP (see Fuzz/README.md).
import SwiftRTCSDP
#if !FUZZING
import Foundation
#endif

/// Feeds one input through the SDP parser, writer and JSEP: parse, and if that succeeds,
/// write, parse again (must succeed and give the same model) and answer it.
func fuzzOne(_ bytes: UnsafeRawBufferPointer) {
    guard let description = try? SessionDescription(parsing: bytes) else { return }
    guard let again = try? SessionDescription(parsing: description.sdp), again == description else {
        fatalError("written SDP does not parse back to the same model:\n\(description.sdp)")
    }
    let local = LocalParameters(iceUfrag: "fuzz", icePwd: "fuzzfuzzfuzzfuzzfuzzfuzz",
                                fingerprints: [Fingerprint(hashFunction: "sha-256", bytes: Array(repeating: 0xAB, count: 32))],
                                sessionId: 1, cname: "fuzz")
    let transceivers = [LocalTransceiver(kind: .audio, streamId: "s", trackId: "a", ssrc: 1),
                        LocalTransceiver(kind: .video, streamId: "s", trackId: "v", ssrc: 2, rtxSsrc: 3)]
    if let answer = try? JSEP.createAnswer(to: description, transceivers: transceivers, local: local) {
        guard (try? SessionDescription(parsing: answer.sdp)) == answer else {
            fatalError("JSEP answer does not parse back:\n\(answer.sdp)")
        }
        _ = try? Negotiation(offer: description, answer: answer)
    }
}

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzOne(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// libFuzzer's driver, `int LLVMFuzzerRunDriver(int *argc, char ***argv,
/// int (*cb)(const uint8_t *, size_t))`: three pointers in, an int out, which Swift's calling
/// convention passes as C does.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// SwiftPM links an executable with `main` renamed to `<module>_main`, which hides
/// libFuzzer's `main`; this one starts libFuzzer's driver instead.
@_cdecl("SDPFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput)
}
#else
/// Without libFuzzer: replays the files given as arguments (crashes found earlier, or a
/// corpus) through the same function.
@main
struct SDPFuzzerReplay {
    static func main() throws {
        for path in CommandLine.arguments.dropFirst() {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            data.withUnsafeBytes { fuzzOne($0) }
            print("ok \(path)")
        }
    }
}
#endif
