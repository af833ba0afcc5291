import Foundation
import SwiftRTCSignaling
import Testing

@testable import SwiftRTCSignalingServer

/// A call-log answer stays under its size limit, keeping the newest records, each encoded once.
@Test func aCallLogAnswerKeepsTheNewestRecordsThatFit() throws {
    let big = (0..<60).reduce(into: [String: String]()) { $0["item-\($1)"] = String(repeating: "x", count: 1000) }
    let records = (0..<20).map { index in
        CallRecord(
            callId: "call-\(index)",
            caller: "alice",
            callees: ["bob"],
            conferenceType: .audio,
            started: Date(timeIntervalSince1970: 1_000_000 - Double(index)),
            ended: Date(timeIntervalSince1970: 1_000_010 - Double(index)),
            result: .completed,
            customItems: big
        )
    }
    let kept = SignalingHub.fitting(records)
    #expect(kept.count > 1 && kept.count < records.count, "\(kept.count)")
    #expect(kept == Array(records.prefix(kept.count)))
    let answer = SignalingMessage(body: .callLog(.init(replyTo: "q", records: kept))).jsonData()
    #expect(answer.count <= SignalingHub.maxCallLogReplyBytes)
    // One record more would not have fitted.
    let more = SignalingMessage(body: .callLog(.init(replyTo: "q", records: Array(records.prefix(kept.count + 1)))))
    #expect(more.jsonData().count > SignalingHub.maxCallLogReplyBytes - 1024)
    // Small answers are kept whole; a single huge record still goes (alone).
    #expect(SignalingHub.fitting(Array(records.prefix(3))).count == 3)
    #expect(SignalingHub.fitting([]).isEmpty)
}
