import SwiftRTCRTP
import Testing

@testable import SwiftRTCCongestion

/// Transport-wide sequence numbers over a long call: at a few hundred packets a second
/// they wrap every few minutes, and the sender's history and the receiver's feedback must
/// keep agreeing on every packet (abs-send-time's 64 s wrap and the feedback reference
/// time's are in ``HostileFeedbackTests`` and ``SendTimeHistoryTests``).
@Suite struct LongCallWrapTests {
    /// 140,000 packets from transport-wide number 65,000 (three wraps), one in 50 lost,
    /// feedback every 10: every packet comes back once, as received or lost, under its
    /// unwrapped number, with its size and the arrival spacing.
    @Test func feedbackMatchesEveryPacketAcrossThreeWraps() throws {
        var history = SendTimeHistory()
        var recorder = TransportFeedbackRecorder()
        let packets = 140_000
        var results: [PacketResult] = []
        for n in 0..<packets {
            let sequence = UInt16(truncatingIfNeeded: 65_000 + n)
            history.record(sequenceNumber: sequence, size: 1000 + n % 100, sendTime: Int64(n) * 2_000)
            if n % 50 != 7 { recorder.record(sequenceNumber: sequence, arrival: 1_000_000 + Int64(n) * 2_000) }
            if n % 10 == 9, let feedback = recorder.makeFeedback(senderSSRC: 1, mediaSSRC: 2) {
                results += history.results(for: feedback)
            }
        }
        // The packets after the last one received in each feedback are reported by the next.
        #expect(results.count >= packets - 10)
        let expected: [Int64] = (0..<Int64(results.count)).map { (n: Int64) -> Int64 in 65_000 + n }
        #expect(results.map(\.sequenceNumber) == expected)
        #expect(results.allSatisfy { $0.size == 1000 + Int($0.sequenceNumber - 65_000) % 100 })
        let lost = results.filter { $0.arrivalTime == nil }
        #expect(lost.allSatisfy { ($0.sequenceNumber - 65_000) % 50 == 7 })
        #expect(lost.count == results.count / 50 || lost.count == results.count / 50 + 1)
        let arrivals = results.compactMap(\.arrivalTime)
        #expect(zip(arrivals, arrivals.dropFirst()).allSatisfy { $1 - $0 == 2_000 || $1 - $0 == 4_000 })
        #expect(history.lostFeedbackPackets == 0)
    }
}
