import Foundation
import SwiftRTCSCTP
import Testing

@testable import FuzzTargets

/// `SctpFuzzer`'s recorded seeds, played as its body plays them (a new association, the
/// peer's packets fixed up to its random tags and TSNs): they must still bring it up and
/// deliver what the peer sent, or the fuzzer would spend its time on packets usrsctp throws
/// away at once (Fuzz/README.md).
@Suite struct SctpSeedTests {
    static func play(_ name: String) throws -> SctpInputOutcome {
        let file = FuzzReplayTests.fuzzFolder.appendingPathComponent("SctpFuzzer/corpus/\(name)")
        let bytes = try [UInt8](Data(contentsOf: file))
        return bytes.withUnsafeBytes { playSctpInput($0) }
    }

    @Test(arguments: ["handshake-we-connect-first.bin", "handshake-peer-init-waits-for-our-connect.bin"])
    func theHandshakeCompletes(_ seed: String) throws {
        #expect(try Self.play(seed).connected)
    }

    @Test func messagesArriveWhole() throws {
        let outcome = try Self.play("messages-both-ways.bin")
        #expect(outcome.connected)
        #expect(outcome.messages.map(\.stream) == [0, 1, 2, 3, 4, 65534])
        #expect(outcome.messages.map(\.ppid) == [51, 53, 56, 57, 53, 51])
        #expect(outcome.messages[4].data == SctpFuzzTarget.message(size: 4000, seed: 9))
        #expect(try Self.play("large-message-reassembled.bin").messages.map(\.data.count) == [100_000])
        #expect(
            try Self.play("data-train-one-message-of-200-fragments.bin").messages.map(\.data.count) == [200_000]
        )
    }

    @Test func aMessageOverTheLimitIsDropped() throws {
        let outcome = try Self.play("message-over-a-4k-limit.bin")
        #expect(outcome.messages.map(\.data) == [Array("hello, data channel".utf8)])
    }

    @Test func forwardTSNSkipsTheLostMessage() throws {
        let outcome = try Self.play("partial-reliability-forward-tsn.bin")
        #expect(outcome.messages.map(\.stream) == [10, 12])
    }

    @Test func streamResetsAndAbort() throws {
        #expect(try Self.play("stream-resets-both-ways.bin").events.contains(.streamsReset([1, 3])))
        #expect(
            try Self.play("abort.bin").events.contains {
                if case .closed = $0 { true } else { false }
            }
        )
    }
}
