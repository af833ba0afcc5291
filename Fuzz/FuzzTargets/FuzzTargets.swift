import Foundation
import FuzzerSupport
import SwiftRTCCore

/// Every fuzzer's body by its name (its corpus and regressions are in `Fuzz/<name>/`): what
/// `swiftrtc-fuzz <name>` runs, and what the regression tests replay the corpora and findings
/// through in ordinary builds.
public var fuzzTargets: [(name: String, body: FuzzTarget)] {
    [
        ("RTPFuzzer", fuzzRTP),
        ("RTCPFuzzer", fuzzRTCP),
        ("VP8DepacketizerFuzzer", fuzzVP8Depacketizer),
        ("SDPFuzzer", fuzzSDP),
        ("NegotiationFuzzer", fuzzNegotiation),
        ("CongestionFuzzer", fuzzCongestion),
        ("ReceiverFuzzer", fuzzReceiver),
        ("RecorderFuzzer", fuzzRecorders),
        ("SignalingFuzzer", fuzzSignaling),
        ("ServerSignalingFuzzer", fuzzServerSignaling),
        ("WHIPFuzzer", fuzzWHIP),
        ("STUNFuzzer", fuzzSTUN),
        ("FileReaderFuzzer", fuzzFileReaders),
        ("DataChannelFuzzer", fuzzDataChannel),
        ("SctpFuzzer", fuzzSCTP),
        ("JanusFuzzer", fuzzJanus),
    ]
}

/// The entry point of `swiftrtc-fuzz`: the stack's logging off (a session log line per input
/// would drown libFuzzer's own output and slow it down), then ``FuzzerDriver``.
/// `swiftrtc-fuzz record-sctp-seeds <folder>` writes `SctpFuzzer`'s seeds there instead
/// (``recordSctpSeeds()``: they come from a live exchange, not from `make-corpus.py`).
public func fuzzerMain() -> Never {
    SwiftRTCLogging.level = .nothing
    let arguments = CommandLine.arguments
    if arguments.count == 3, arguments[1] == "record-sctp-seeds" {
        do {
            let folder = URL(fileURLWithPath: arguments[2])
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (name, bytes) in try recordSctpSeeds() {
                try Data(bytes).write(to: folder.appendingPathComponent(name))
                print("\(name): \(bytes.count) bytes")
            }
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("record-sctp-seeds: \(error)\n".utf8))
            exit(1)
        }
    }
    FuzzerDriver.main(fuzzTargets)
}
