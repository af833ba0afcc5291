import RTPFixtureSupport
import Testing

@testable import SwiftRTCCongestion
@testable import SwiftRTCRTP

@Suite struct TransportFeedbackRecorderTests {
    /// Real transport-cc feedback Chromium 156 sent (rtp/chrome-156-plain-rtp-opus-vp8-rtx-twcc.pcap,
    /// the first ones of each direction and two later ones). Fed the arrivals a packet
    /// describes, the recorder writes the same statuses, reference time and chunks.
    static let chromeFeedback: [(hex: String, base: UInt16, count: Int, reference: Int32)] = [
        ("afcd0006fa17fa178ef474ae00010004002a15002004565d40570002", 1, 4, 0x2A15),
        ("afcd0006fa17fa178ef474ae00050003002a16012003945153000003", 5, 3, 0x2A16),
        ("afcd0006fa17fa172da795b300080005002a170220058450580d0001", 8, 5, 0x2A17),
        (
            "afcd000bfa17fa1723a9fc7d000d0017002a180320175f0c0a0013000e111112001a07080d090d0010010d1111000003", 13, 23,
            0x2A18
        ),
        ("8fcd0007fa17fa178ef474ae0024000a002a1904200a6701150011161a020c3a", 36, 10, 0x2A19),
        ("afcd0006fa17fa178ef474ae00ba0003002a3b272003c45b46000003", 186, 3, 0x2A3B),
    ]

    @Test(arguments: 0..<chromeFeedback.count)
    func rebuildsChromeFeedback(index: Int) throws {
        let vector = Self.chromeFeedback[index]
        let bytes = [UInt8](hex: vector.hex)
        let packets = try bytes.withUnsafeBytes { try RTCPPacket.parseCompound($0) }
        guard case .transportFeedback(let chrome) = packets.first else {
            Issue.record("not transport-cc: \(packets)")
            return
        }
        #expect(chrome.baseSequenceNumber == vector.base)
        #expect(chrome.statuses.count == vector.count)
        #expect(chrome.referenceTime == vector.reference)
        #expect(chrome.statuses.allSatisfy { $0 != .notReceived })

        var recorder = TransportFeedbackRecorder()
        var arrival = Int64(chrome.referenceTime) * 64_000
        for (offset, status) in chrome.statuses.enumerated() {
            guard let delta = status.delta else { continue }
            arrival += Int64(delta) * 250
            recorder.record(sequenceNumber: chrome.baseSequenceNumber &+ UInt16(offset), arrival: arrival)
        }
        let madeours = recorder.makeFeedback(senderSSRC: chrome.senderSSRC, mediaSSRC: chrome.mediaSSRC)
        let ours = try #require(madeours)
        #expect(ours.baseSequenceNumber == chrome.baseSequenceNumber)
        #expect(ours.referenceTime == chrome.referenceTime)
        #expect(ours.statuses == chrome.statuses)
        #expect(ours.chunks == chrome.chunks)
        // Byte for byte up to the padding (Chromium sets P and pads with a count byte), except
        // the feedback packet count (byte 19: ours counts from 0).
        var written = [UInt8](repeating: 0, count: 256)
        let length = try written.withUnsafeMutableBytes { try RTCPPacket.transportFeedback(ours).write(into: $0) }
        let end = 4 + 16 + 2 * chrome.chunks.count + chrome.deltaBytes
        #expect(written[4..<19] == bytes[4..<19])
        #expect(written[20..<end] == bytes[20..<end])
        #expect(length == (end + 3) / 4 * 4)
        #expect(recorder.makeFeedback(senderSSRC: 1, mediaSSRC: 2) == nil)
    }

    /// Losses, wrap-around, and a delta that is negative (reordered arrival).
    @Test func lossesWrapAndReordering() throws {
        var recorder = TransportFeedbackRecorder()
        let base: Int64 = 64_000 * 1000
        recorder.record(sequenceNumber: 65534, arrival: base + 1_000)
        // 65535 lost
        recorder.record(sequenceNumber: 0, arrival: base + 3_000)
        recorder.record(sequenceNumber: 2, arrival: base + 2_000)  // reordered: before 0's arrival
        recorder.record(sequenceNumber: 1, arrival: base + 90_000)  // 87 ms after: a large delta
        let madefeedback = recorder.makeFeedback(senderSSRC: 7, mediaSSRC: 8)
        let feedback = try #require(madefeedback)
        #expect(feedback.baseSequenceNumber == 65534)
        #expect(feedback.referenceTime == 1000)
        #expect(
            feedback.statuses == [.smallDelta(4), .notReceived, .smallDelta(8), .largeDelta(348), .largeDelta(-352)]
        )
        #expect(!recorder.hasPendingFeedback)
        // A late arrival of something already reported is not reported again.
        recorder.record(sequenceNumber: 65535, arrival: base + 100_000)
        #expect(recorder.makeFeedback(senderSSRC: 7, mediaSSRC: 8) == nil)
        recorder.record(sequenceNumber: 3, arrival: base + 100_000)
        let madenext = recorder.makeFeedback(senderSSRC: 7, mediaSSRC: 8)
        let next = try #require(madenext)
        #expect(next.baseSequenceNumber == 3)
        #expect(next.feedbackPacketCount == feedback.feedbackPacketCount &+ 1)
    }

    /// A delta beyond 16 bits (more than 8 s) ends the feedback; the next starts anew.
    @Test func hugeGapSplitsFeedback() throws {
        var recorder = TransportFeedbackRecorder()
        recorder.record(sequenceNumber: 10, arrival: 1_000_000)
        recorder.record(sequenceNumber: 11, arrival: 20_000_000)
        let madefirst = recorder.makeFeedback(senderSSRC: 1, mediaSSRC: 2)
        let first = try #require(madefirst)
        #expect(first.statuses.count == 1)
        let madesecond = recorder.makeFeedback(senderSSRC: 1, mediaSSRC: 2)
        let second = try #require(madesecond)
        #expect(second.baseSequenceNumber == 11)
        #expect(second.referenceTime == Int32(20_000_000 / 64_000))
        #expect(second.statuses == [.smallDelta(UInt8((20_000_000 % 64_000) / 250))])
    }

    /// Many packets: at most ``maximumStatuses`` per feedback, the rest in the next.
    @Test func longRunsAreSplit() throws {
        var recorder = TransportFeedbackRecorder()
        for i in 0..<1000 { recorder.record(sequenceNumber: UInt16(i), arrival: Int64(i) * 1000) }
        var counts: [Int] = []
        while let feedback = recorder.makeFeedback(senderSSRC: 1, mediaSSRC: 2) {
            counts.append(feedback.statuses.count)
        }
        #expect(counts == [400, 400, 200])
    }
}
