import Foundation
import Testing

@testable import SwiftRTCSignaling

private let sampleMessages: [SignalingMessage] = [
    .init(body: .hello(.init(token: "t0k"))),
    .init(body: .welcome(.init(user: "alice"))),
    .init(
        id: "m1",
        from: "alice",
        to: ["bob"],
        session: "s1",
        body: .call(
            .init(
                sdp: "v=0\r\n",
                conferenceType: .video,
                initiator: "alice",
                opponents: ["bob", "carol"],
                userInfo: ["name": "Alice"]
            )
        )
    ),
    .init(to: ["alice"], session: "s1", body: .accept(.init(sdp: "v=0\r\n", userInfo: ["k": "v"]))),
    .init(to: ["carol"], session: "s1", body: .accept(.init())),
    .init(to: ["alice"], session: "s1", body: .reject(.init(busy: true))),
    .init(to: ["bob"], session: "s1", body: .hangUp(.init(userInfo: ["bye": "1"], result: .noAnswer))),
    .init(to: ["bob"], session: "s1", body: .offer(.init(sdp: "v=0\r\n", iceRestart: true))),
    .init(to: ["bob"], session: "s1", body: .answer(.init(sdp: "v=0\r\n"))),
    .init(
        to: ["bob"],
        session: "s1",
        body: .candidate(.init(candidate: "candidate:1 1 udp 1 127.0.0.1 5000 typ host", sdpMid: "0", sdpMLineIndex: 0))
    ),
    .init(to: ["bob"], session: "s1", body: .mediaSettings(.init(audioEnabled: false))),
    .init(to: ["bob"], session: "s1", body: .customItems(.init(updated: ["topic": "demo"], deleted: ["old"]))),
    .init(to: ["bob"], session: "s1", body: .recording(.init(active: true, option: .localAudioRemoteAudioVideo))),
    .init(id: "q", body: .callLogQuery(.init(role: .caller, result: .completed, limit: 10))),
    .init(
        body: .callLog(
            .init(
                replyTo: "q",
                records: [
                    CallRecord(
                        callId: "s1",
                        caller: "alice",
                        callees: ["bob"],
                        conferenceType: .audio,
                        started: Date(timeIntervalSince1970: 1000),
                        answered: Date(timeIntervalSince1970: 1002),
                        ended: Date(timeIntervalSince1970: 1012.5),
                        result: .completed,
                        customItems: ["a": "b"]
                    )
                ]
            )
        )
    ),
    .init(body: .error(.init(code: .forbidden, reason: "not invited", replyTo: "m1"))),
]

@Test func everyMessageTypeRoundTripsThroughFlatJSON() throws {
    #expect(Set(sampleMessages.map(\.type)) == Set(SignalingMessageType.allCases))
    for message in sampleMessages {
        let json = message.jsonData()
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["type"] as? String == message.type.rawValue)
        #expect(try SignalingMessage(json: json) == message)
    }
}

@Test func wireFormIsFlatAndNamedAsDocumented() throws {
    let json = String(decoding: sampleMessages[2].jsonData(), as: UTF8.self)
    #expect(
        json
            == #"{"conferenceType":"video","from":"alice","id":"m1","initiator":"alice","opponents":["bob","carol"],"sdp":"v=0\r\n","session":"s1","to":["bob"],"type":"call","userInfo":{"name":"Alice"}}"#
    )
    let record = String(decoding: sampleMessages[14].jsonData(), as: UTF8.self)
    #expect(record.contains(#""duration":10.5"#))
    #expect(record.contains(#""result":"completed""#))
    let hangUp = String(decoding: sampleMessages[6].jsonData(), as: UTF8.self)
    #expect(hangUp.contains(#""result":"no_answer""#))
}

@Test(arguments: [
    (#"not json"#, "not a JSON message"),
    (#"[1,2]"#, "not a JSON message"),
    (#"{"type":"dance"}"#, "unknown message type 'dance'"),
    (#"{"session":"s"}"#, "missing message type"),
    (#"{"type":"hello"}"#, "missing field 'token'"),
    (#"{"type":"hello","token":5}"#, "field 'token'"),
    (#"{"type":"accept","session":"s","to":["a"],"userInfo":{"x":1}}"#, "field 'userInfo.x'"),
    (#"{"type":"hangUp","session":"s","to":["a"],"userInfo":{},"result":"exploded"}"#, "field 'result'"),
    (#"{"type":"hangUp","to":["a"],"userInfo":{}}"#, "field 'session'"),
    (#"{"type":"hangUp","session":"s","userInfo":{}}"#, "field 'to'"),
    (
        #"{"type":"call","session":"s","to":["b"],"sdp":"","conferenceType":"audio","initiator":"a","opponents":["b","c","d","e"],"userInfo":{}}"#,
        "field 'opponents'"
    ),
    (
        #"{"type":"call","session":"s","to":["b"],"sdp":"","conferenceType":"audio","initiator":"a","opponents":["a"],"userInfo":{}}"#,
        "field 'opponents'"
    ),
    (
        #"{"type":"call","session":"s","to":["z"],"sdp":"","conferenceType":"audio","initiator":"a","opponents":["b"],"userInfo":{}}"#,
        "recipient z"
    ),
    // Every user id a message names is one (a long name would bloat every call record).
    (
        #"{"type":"call","session":"s","to":["b c"],"sdp":"","conferenceType":"audio","initiator":"a","opponents":["b c"],"userInfo":{}}"#,
        "field 'to[0]': 'b c' is not a user id"
    ),
    (
        #"{"type":"call","session":"s","to":["b"],"sdp":"","conferenceType":"audio","initiator":"\#(String(repeating: "a", count: 65))","opponents":["b"],"userInfo":{}}"#,
        "field 'initiator'"
    ),
    (
        #"{"type":"call","session":"s","to":["b"],"sdp":"","conferenceType":"audio","initiator":"a","opponents":["b","ö"],"userInfo":{}}"#,
        "field 'opponents[1]'"
    ),
    (#"{"type":"hangUp","session":"s","to":["b"],"from":"","userInfo":{}}"#, "field 'from': empty user id"),
    (#"{"type":"callLogQuery","limit":0}"#, "field 'limit'"),
    (#"{"type":"error","code":418,"reason":"teapot"}"#, "field 'code'"),
    // Numbers out of their range, refused where they enter (decoding).
    (
        #"{"type":"candidate","session":"s","to":["b"],"candidate":"c","sdpMLineIndex":9223372036854775807}"#,
        "field 'sdpMLineIndex': 9223372036854775807, expected 0...63"
    ),
    (#"{"type":"candidate","session":"s","to":["b"],"candidate":"c","sdpMLineIndex":-1}"#, "field 'sdpMLineIndex': -1"),
    (#"{"type":"callLogQuery","limit":-9223372036854775808}"#, "field 'limit'"),
    (
        #"{"type":"callLog","records":[{"callId":"c","caller":"a","callees":["b"],"conferenceType":"audio","started":0,"ended":1e300,"result":"completed"}]}"#,
        "field 'records[0].ended': 1e+300"
    ),
    (
        #"{"type":"callLog","records":[{"callId":"c","caller":"a","callees":["b"],"conferenceType":"audio","started":-5,"ended":1,"result":"completed"}]}"#,
        "field 'records[0].started'"
    ),
])
func malformedMessagesAreRefusedWithWhere(json: String, expected: String) {
    #expect {
        try SignalingMessage(json: Data(json.utf8))
    } throws: { error in
        guard let error = error as? SignalingProtocolError else { return false }
        return error.code == .malformed && error.description.contains(expected)
    }
}

/// A client decodes the server's messages without `init(json:)` (a call log may be larger than
/// a client's message): the numbers are checked by the decoding itself, so a hostile server's
/// record cannot carry a talk time that overflows an `Int`.
@Test func aServersRecordWithTimesOutOfRangeDoesNotDecode() {
    let json =
        #"{"type":"callLog","records":[{"callId":"c","caller":"a","callees":["b"],"conferenceType":"audio","started":-1e300,"answered":-1e300,"ended":1e300,"result":"completed"}]}"#
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(SignalingMessage.self, from: Data(json.utf8)) }
    let fine =
        #"{"type":"callLog","records":[{"callId":"c","caller":"a","callees":["b"],"conferenceType":"audio","started":10,"answered":12,"ended":20,"result":"completed"}]}"#
    #expect(throws: Never.self) { try JSONDecoder().decode(SignalingMessage.self, from: Data(fine.utf8)) }
}

@Test func oversizedMessagesAreRefusedBeforeParsing() {
    let huge = Data(repeating: UInt8(ascii: " "), count: SignalingLimits.maxMessageBytes + 1)
    #expect(throws: SignalingProtocolError.tooLarge(bytes: huge.count, limit: SignalingLimits.maxMessageBytes)) {
        try SignalingMessage(json: huge)
    }
}
