import SwiftRTCRTP
import Testing

@testable import SwiftRTCCongestion

@Suite struct SendTimeHistoryTests {
    /// Feedback from the real recorder matched against the history: arrival spacing, sizes
    /// and losses come back, across the sequence number wrap; repeated feedback is not
    /// counted twice.
    @Test func matchesFeedbackToSentPackets() throws {
        var history = SendTimeHistory()
        var recorder = TransportFeedbackRecorder()
        for i in 0..<10 {
            let sequence = UInt16(truncatingIfNeeded: 65530 + i)
            history.record(sequenceNumber: sequence, size: 100 + i, sendTime: Int64(i) * 10_000)
            if i != 3 { recorder.record(sequenceNumber: sequence, arrival: 5_000_000 + Int64(i) * 12_000) }
        }
        let madefeedback = recorder.makeFeedback(senderSSRC: 1, mediaSSRC: 2)
        let feedback = try #require(madefeedback)
        let results = history.results(for: feedback)
        #expect(results.map(\.sequenceNumber) == Array(65530..<65540))
        #expect(results.map(\.size) == Array(100..<110))
        #expect(results[3].arrivalTime == nil)
        let arrivals = results.compactMap(\.arrivalTime)
        #expect(zip(arrivals, arrivals.dropFirst()).allSatisfy { $1 - $0 == 12_000 || $1 - $0 == 24_000 })
        #expect(history.results(for: feedback).allSatisfy { $0.arrivalTime == nil })
    }

    /// The reference time is unwrapped across feedback packets (24 bits of 64 ms).
    @Test func referenceTimeWraps() {
        var history = SendTimeHistory()
        history.record(sequenceNumber: 1, size: 100, sendTime: 0)
        history.record(sequenceNumber: 2, size: 100, sendTime: 50_000)
        let first = TransportLayerCC(
            senderSSRC: 1,
            mediaSSRC: 2,
            baseSequenceNumber: 1,
            referenceTime: 0x7F_FFFF,
            feedbackPacketCount: 0,
            statuses: [.smallDelta(0)]
        )
        let second = TransportLayerCC(
            senderSSRC: 1,
            mediaSSRC: 2,
            baseSequenceNumber: 2,
            referenceTime: -0x80_0000,
            feedbackPacketCount: 1,
            statuses: [.smallDelta(0)]
        )
        let a = history.results(for: first), b = history.results(for: second)
        #expect(b[0].arrivalTime! - a[0].arrivalTime! == 64_000)
        #expect(history.lostFeedbackPackets == 0)
    }
}
