import SwiftRTCCore
import FuzzerSupport

/// Every fuzzer's body by the name of its executable (`Fuzz/<name>/`), for the regression
/// tests that replay the corpora and findings in ordinary builds.
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
        ("WHIPFuzzer", fuzzWHIP),
        ("STUNFuzzer", fuzzSTUN),
        ("FileReaderFuzzer", fuzzFileReaders),
    ]
}

/// The entry point of a fuzzer executable: the stack's logging off (a session log line per
/// input would drown libFuzzer's own output and slow it down), then ``FuzzerDriver``.
public func fuzzerMain(_ body: @escaping FuzzTarget) -> Never {
    SwiftRTCLogging.level = .nothing
    FuzzerDriver.main(body)
}
