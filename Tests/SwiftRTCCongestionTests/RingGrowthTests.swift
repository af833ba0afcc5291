import SwiftRTCRTP
import Testing

@testable import SwiftRTCCongestion

/// The congestion rings start small and grow to what a stream needs: an audio call's stay at
/// their first size, a video call's grow to hold the packets between two feedbacks (or one
/// averaging window), and none grows past its capacity whatever a peer sends. What they hold
/// survives each growth.
@Suite struct RingGrowthTests {
    /// (packets sent, µs between two, packets between two feedbacks, the send history's ring
    /// after)
    @Test(arguments: [
        (10_000, 20_000, 5, SendTimeHistory.initialCapacity),  // audio: 50 packets/s, feedback every 100 ms
        (9_600, 1000, 600, 1024),  // video: 1000 packets/s, a feedback every 600 ms
        (30_000, 1000, 3000, 1024),  // feedback every 3 s: a second of packets is kept
        (30_000, 10, 10_000, SendTimeHistory.capacity),  // 100,000 packets/s: the capacity
    ])
    func sendHistoryGrowsToTheFeedbackDelay(packets: Int, spacing: Int, perFeedback: Int, ring: Int) throws {
        var history = SendTimeHistory()
        var recorder = TransportFeedbackRecorder()
        var matched = 0, reported = 0
        for i in 0..<packets {
            let sequence = UInt16(truncatingIfNeeded: i)
            history.record(sequenceNumber: sequence, size: 200, sendTime: Int64(i * spacing))
            recorder.record(sequenceNumber: sequence, arrival: 1_000_000 + Int64(i) * 1000)
            if (i + 1) % perFeedback == 0 {
                while let feedback = recorder.makeFeedback(senderSSRC: 1, mediaSSRC: 2) {
                    reported += feedback.statuses.count
                    matched += history.results(for: feedback).filter { $0.arrivalTime != nil }.count
                }
            }
        }
        #expect(history.ringSize == ring)
        if perFeedback <= ring {
            // Every packet reported was still in the ring: none was given up.
            #expect(reported == packets && matched == packets)
        } else {
            #expect(matched < packets, "what no ring could hold is given up")
        }
    }

    /// Without any feedback (a peer without transport-cc) the ring keeps one second of packets.
    @Test(arguments: [(20_000, SendTimeHistory.initialCapacity), (1000, 1024), (100, SendTimeHistory.capacity)])
    func sendHistoryKeepsASecondWithoutFeedback(spacing: Int, ring: Int) {
        var history = SendTimeHistory()
        for i in 0..<50_000 {
            history.record(sequenceNumber: UInt16(truncatingIfNeeded: i), size: 1200, sendTime: Int64(i * spacing))
        }
        #expect(history.ringSize == ring)
    }

    /// (packets between two feedbacks, the recorder's ring after, statuses reported)
    @Test(arguments: [
        (10, TransportFeedbackRecorder.initialCapacity, 10),
        (1000, 1024, 1000),
        (4096, 4096, 4096),
    ])
    func feedbackRecorderGrowsToThePacketsBetweenFeedbacks(perFeedback: Int, ring: Int, statuses: Int) {
        var recorder = TransportFeedbackRecorder()
        var reported = 0
        for round in 0..<3 {
            reported = 0
            for i in 0..<perFeedback {
                let sequence = round * perFeedback + i
                recorder.record(sequenceNumber: UInt16(truncatingIfNeeded: sequence), arrival: Int64(sequence) * 100)
            }
            while let feedback = recorder.makeFeedback(senderSSRC: 1, mediaSSRC: 2) {
                reported += feedback.statuses.count
            }
        }
        #expect(recorder.ringSize == ring)
        #expect(reported == statuses)
    }

    /// A peer's jump of 30,000 sequence numbers grows the ring to its capacity and no
    /// further; what the capacity cannot hold is given up, and the next feedback reaches the
    /// arrival after the jump, with as many losses before it as one feedback holds.
    @Test func aJumpGrowsTheRecorderToItsCapacityAndNoFurther() throws {
        var recorder = TransportFeedbackRecorder()
        recorder.record(sequenceNumber: 1, arrival: 0)
        recorder.record(sequenceNumber: 30_001, arrival: 1000)
        #expect(recorder.ringSize == TransportFeedbackRecorder.capacity)
        let made = recorder.makeFeedback(senderSSRC: 1, mediaSSRC: 2)
        let feedback = try #require(made)
        let statuses = TransportFeedbackRecorder.maximumStatuses
        #expect(Int(feedback.baseSequenceNumber) == 30_001 - statuses + 1)
        #expect(feedback.statuses.count == statuses && feedback.statuses.last?.delta != nil)
    }

    /// An outage: 1000 packets lost in a row, then packets again. The next feedback reports
    /// the arrivals after it (with the last losses before them), not nothing.
    @Test func feedbackGoesOnAfterMoreLossesInARowThanOneFeedbackHolds() throws {
        var recorder = TransportFeedbackRecorder()
        for sequence in 0..<10 { recorder.record(sequenceNumber: UInt16(sequence), arrival: Int64(sequence) * 1000) }
        _ = recorder.makeFeedback(senderSSRC: 1, mediaSSRC: 2)
        for sequence in 1010..<1020 {
            recorder.record(sequenceNumber: UInt16(sequence), arrival: Int64(sequence) * 1000)
        }
        var received = 0
        while let feedback = recorder.makeFeedback(senderSSRC: 1, mediaSSRC: 2) {
            received += feedback.statuses.filter { $0.delta != nil }.count
        }
        #expect(received == 10)
    }

    /// (packets per second, the estimator's ring after 3 s, whether a window fits the ring)
    @Test(arguments: [
        (50, ThroughputEstimator.initialCapacity, true),
        (1500, 1024, true),
        (10_000, ThroughputEstimator.capacity, false),  // more packets than a window's capacity
    ])
    func throughputGrowsToAWindowsPackets(perSecond: Int, ring: Int, fits: Bool) throws {
        var estimator = ThroughputEstimator()
        let spacing = 1_000_000 / Int64(perSecond)
        for i in 0..<(3 * perSecond) { estimator.add(arrival: Int64(i) * spacing, size: 200) }
        #expect(estimator.ringSize == ring)
        let measured = try #require(estimator.bitrate)
        // A 500 ms window ending at the newest packet holds window / spacing + 1 packets.
        let inWindow = Int(estimator.window / spacing) + 1
        let expected = inWindow * 200 * 8 * 1_000_000 / Int(estimator.window)
        #expect((measured == expected) == fits, "\(measured) bit/s, \(expected) expected")
    }
}
