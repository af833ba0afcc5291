import Foundation
import Testing

@testable import SwiftRTCSignaling

private func msg(_ from: String, _ to: [String], _ body: SignalingBody) -> SignalingMessage {
    SignalingMessage(from: from, to: to, session: "s", body: body)
}

private func call(_ opponents: [String]) -> [SignalingMessage] {
    opponents.map {
        msg("a", [$0], .call(.init(sdp: "o", conferenceType: .audio, initiator: "a", opponents: opponents)))
    }
}

private let answer = SignalingBody.accept(.init(sdp: "x"))

/// Message sequences of whole calls and the record the server must write for each.
private let scenarios: [(String, [SignalingMessage], [String], CallEndResult?)] = [
    (
        "answered then hung up", call(["b"]) + [msg("b", ["a"], answer), msg("b", ["a"], .hangUp(.init()))], [],
        .completed
    ),
    (
        "caller hangs up a connected call", call(["b"]) + [msg("b", ["a"], answer), msg("a", ["b"], .hangUp(.init()))],
        [], .completed
    ),
    ("canceled", call(["b"]) + [msg("a", ["b"], .hangUp(.init(result: .canceled)))], [], .canceled),
    ("declined", call(["b"]) + [msg("b", ["a"], .reject(.init()))], [], .declined),
    ("busy", call(["b"]) + [msg("b", ["a"], .reject(.init(busy: true)))], [], .busy),
    ("no answer", call(["b"]) + call(["b"]) + [msg("a", ["b"], .hangUp(.init(result: .noAnswer)))], [], .noAnswer),
    (
        "connection lost",
        call(["b"]) + [msg("b", ["a"], answer), msg("a", ["b"], .hangUp(.init(result: .connectionLost)))], [],
        .connectionLost
    ),
    ("callee disconnects mid-call", call(["b"]) + [msg("b", ["a"], answer)], ["b"], .completed),
    ("still ringing", call(["b"]), [], nil),
    (
        "mesh: one rejects, one answers, still on",
        call(["b", "c"]) + [msg("b", ["a", "c"], .reject(.init())), msg("c", ["a"], answer)], [], nil
    ),
    (
        "mesh: all leave",
        call(["b", "c"]) + [
            msg("b", ["a"], answer), msg("c", ["a"], answer), msg("b", ["a", "c"], .hangUp(.init())),
            msg("c", ["a"], .hangUp(.init())),
        ], [], .completed
    ),
    (
        "mesh: one declines, one no answer",
        call(["b", "c"]) + [msg("b", ["a"], .reject(.init())), msg("a", ["c"], .hangUp(.init(result: .noAnswer)))], [],
        .noAnswer
    ),
    (
        "stranger cannot answer", call(["b"]) + [msg("m", ["a"], answer), msg("b", ["a"], .reject(.init()))], [],
        .declined
    ),
    // Only the initiator's no_answer withdraws (and only from recipients still called); only
    // its canceled counts: any other hang-up is the sender leaving.
    (
        "an opponent's no_answer is its leaving",
        call(["b", "c"]) + [
            msg("b", ["a"], answer),
            msg("b", ["a", "c"], .hangUp(.init(result: .noAnswer))),
        ], [], nil
    ),
    (
        "an opponent's no_answer, then the rest leave",
        call(["b", "c"]) + [
            msg("b", ["a"], answer), msg("b", ["a", "c"], .hangUp(.init(result: .noAnswer))),
            msg("a", ["c"], .hangUp(.init())),
        ], [], .completed
    ),
    (
        "the initiator's no_answer spares who answered",
        call(["b", "c"]) + [
            msg("b", ["a"], answer),
            msg("a", ["b", "c"], .hangUp(.init(result: .noAnswer))),
        ], [], nil
    ),
    (
        "an opponent's canceled is a hang-up", call(["b"]) + [msg("b", ["a"], .hangUp(.init(result: .canceled)))], [],
        .noAnswer
    ),
]

@Test(arguments: scenarios.indices)
func callLogBuilderDerivesTheEndResult(index: Int) {
    let (name, messages, disconnects, expected) = scenarios[index]
    var builder = CallLogBuilder()
    var records: [CallRecord] = []
    let start = Date(timeIntervalSince1970: 1000)
    for (offset, message) in messages.enumerated() {
        if let record = builder.observe(message, at: start.addingTimeInterval(Double(offset))) {
            records.append(record)
        }
    }
    for user in disconnects { records += builder.disconnected(user: user, at: start.addingTimeInterval(100)) }
    #expect(records.map(\.result) == (expected.map { [$0] } ?? []), "\(name)")
    if let record = records.first {
        #expect(record.callId == "s" && record.caller == "a" && record.started == start)
        #expect(record.ended > record.started)
        #expect(builder.openCalls == 0)
    }
}

@Test func callLogBuilderKeepsTheCustomItemsAndTheTalkTime() throws {
    var builder = CallLogBuilder()
    let t0 = Date(timeIntervalSince1970: 0)
    _ = builder.observe(call(["b"])[0], at: t0)
    _ = builder.observe(msg("b", ["a"], answer), at: t0.addingTimeInterval(2))
    _ = builder.observe(
        msg("a", ["b"], .customItems(.init(updated: ["k": "v", "x": "y"]))),
        at: t0.addingTimeInterval(3)
    )
    _ = builder.observe(msg("b", ["a"], .customItems(.init(deleted: ["x"]))), at: t0.addingTimeInterval(4))
    let ended = builder.observe(msg("b", ["a"], .hangUp(.init())), at: t0.addingTimeInterval(12))
    let record = try #require(ended)
    #expect(record.customItems == ["k": "v"])
    #expect(record.duration == 10)
}
