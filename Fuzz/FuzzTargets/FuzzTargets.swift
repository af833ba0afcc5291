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
    ]
}

/// The entry point of `swiftrtc-fuzz`: the stack's logging off (a session log line per input
/// would drown libFuzzer's own output and slow it down), then ``FuzzerDriver``.
public func fuzzerMain() -> Never {
    SwiftRTCLogging.level = .nothing
    FuzzerDriver.main(fuzzTargets)
}
