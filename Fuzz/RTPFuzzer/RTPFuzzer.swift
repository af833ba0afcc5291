import SwiftRTCRTP

/// Parses the input as RTP: header, CSRCs, every extension element and the typed values,
/// RTX unwrap, the Opus TOC and the VP8 descriptor of the payload. Nothing may trap.
func fuzzRTP(_ bytes: UnsafeRawBufferPointer) {
    guard let packet = try? RTPPacket(parsing: bytes) else { return }
    var sum = packet.payloadLength &+ packet.paddingLength
    for i in 0 ..< packet.csrcCount { sum &+= Int(packet.csrc(at: i)) }
    for element in packet.extensions {
        sum &+= element.data.count
        _ = try? SDESMid(parsing: element.data)
        _ = try? AbsSendTime(parsing: element.data)
        _ = try? TransportSequenceNumber(parsing: element.data)
        _ = try? AudioLevel(parsing: element.data)
        _ = try? PlayoutDelay(parsing: element.data)
    }
    _ = try? OpusTOC(parsing: packet.payload)
    if let (_, length) = try? VP8PayloadDescriptor.parse(packet.payload), length <= packet.payloadLength {
        _ = try? VP8FrameHeader(parsing: UnsafeRawBufferPointer(rebasing: packet.payload[length...]))
    }
    var out = [UInt8](repeating: 0, count: bytes.count + 2)
    out.withUnsafeMutableBytes { buffer in
        _ = try? RTXPacket.unwrap(packet, originalPayloadType: 96, originalSSRC: 1, into: buffer)
        _ = try? RTXPacket.wrap(packet, payloadType: 97, ssrc: 2, sequenceNumber: 3, into: buffer)
    }
    if sum == -1 { print(sum) }
}

#if FUZZING
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzRTP(UnsafeRawBufferPointer(start: data, count: size))
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
struct RTPFuzzerMain {
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
struct RTPFuzzerReplay {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            Array(data).withUnsafeBytes { fuzzRTP($0) }
            print("ok \(path)")
        }
    }
}
#endif
