import Foundation
import Testing

@testable import SwiftRTCJanus

/// Janus's messages as Janus 1.1.2 sends them (the `janus-protocol` API), and hostile ones:
/// a field of the wrong type counts as missing, numbers are clamped, strings cut, deep
/// nesting refused.
@Suite struct JanusMessageTests {
    @Test func aCreatedSessionsIDIsRead() throws {
        let message = try #require(
            JanusMessage(text: #"{"janus":"success","transaction":"abc","data":{"id":4213587102354867}}"#)
        )
        #expect(message.kind == "success" && message.transaction == "abc")
        #expect(message.createdID == 4_213_587_102_354_867)
    }

    @Test func anErrorsCodeAndReasonAreRead() throws {
        let message = try #require(
            JanusMessage(
                text:
                    #"{"janus":"error","session_id":1,"transaction":"t","error":{"code":458,"reason":"No such session 1"}}"#
            )
        )
        #expect(message.error?.code == 458 && message.error?.reason == "No such session 1")
    }

    @Test func aPluginEventWithAnOfferIsRead() throws {
        let text = #"""
            {"janus":"event","session_id":77,"transaction":"x","sender":88,
             "plugindata":{"plugin":"janus.plugin.videoroom","data":{"videoroom":"attached","room":1234,"streams":[{"mid":"0","type":"audio"}]}},
             "jsep":{"type":"offer","sdp":"v=0\r\n"}}
            """#
        let message = try #require(JanusMessage(text: text))
        #expect(message.kind == "event" && message.session == 77 && message.sender == 88)
        #expect(message.plugin == "janus.plugin.videoroom")
        #expect(message.pluginData?["videoroom"]?.string == "attached")
        #expect(message.pluginData?["room"]?.integer == 1234)
        #expect(message.pluginData?["streams"]?.array?.first?["type"]?.string == "audio")
        #expect(message.jsep == JanusJSEP(type: "offer", sdp: "v=0\r\n"))
    }

    @Test(arguments: [
        (#"{"janus":"media","session_id":1,"sender":2,"mid":"1","type":"video","receiving":true}"#, "media"),
        (
            #"{"janus":"slowlink","session_id":1,"sender":2,"mid":"0","media":"audio","uplink":true,"lost":12}"#,
            "slowlink"
        ),
        (#"{"janus":"hangup","session_id":1,"sender":2,"reason":"DTLS alert"}"#, "hangup"),
        (#"{"janus":"webrtcup","session_id":1,"sender":2}"#, "webrtcup"),
        (#"{"janus":"detached","session_id":1,"sender":2}"#, "detached"),
    ])
    func handleEventsAreRead(text: String, kind: String) throws {
        let message = try #require(JanusMessage(text: text))
        #expect(message.kind == kind && message.sender == 2)
        switch kind {
        case "media": #expect(message.mediaType == "video" && message.receiving == true && message.mid == "1")
        case "slowlink": #expect(message.uplink == true && message.lost == 12 && message.mid == "0")
        case "hangup": #expect(message.reason == "DTLS alert")
        default: break
        }
    }

    @Test func janusCandidatesAndTheirEndAreRead() throws {
        let candidate = try #require(
            JanusMessage(
                text:
                    #"{"janus":"trickle","session_id":1,"sender":2,"candidate":{"sdpMid":"0","sdpMLineIndex":0,"candidate":"candidate:1 1 udp 2015363327 10.0.0.1 40000 typ host"}}"#
            )
        )
        #expect(
            candidate.candidate
                == JanusCandidate(
                    candidate: "candidate:1 1 udp 2015363327 10.0.0.1 40000 typ host",
                    sdpMid: "0",
                    sdpMLineIndex: 0
                )
        )
        let end = try #require(
            JanusMessage(text: #"{"janus":"trickle","session_id":1,"sender":2,"candidate":{"completed":true}}"#)
        )
        #expect(end.trickleCompleted && end.candidate == nil)
    }

    @Test(arguments: [
        "", "null", "[]", "42", #"{"transaction":"x"}"#, #"{"janus":7}"#, "{\"janus\":\"ack\"", "\u{0}",
    ])
    func whatIsNotAJanusMessageIsRefused(text: String) {
        #expect(JanusMessage(text: text) == nil)
    }

    @Test func hostileFieldsAreClampedOrIgnored() throws {
        let long = String(repeating: "x", count: 10_000)
        let text = #"""
            {"janus":"slowlink","session_id":-5,"sender":1.5,"lost":1e300,"uplink":"yes","mid":"\#(long)",
             "data":{"id":"12"},"error":{"code":1e30,"reason":7},"jsep":{"type":"pranswer","sdp":"v=0"}}
            """#
        let message = try #require(JanusMessage(text: text))
        #expect(message.session == nil && message.sender == nil && message.createdID == nil)
        #expect(message.lost == nil)  // 1e300 is no whole number within 2^53
        #expect(message.uplink == nil)
        #expect(message.mid?.count == JanusMessage.maxString)
        #expect(message.error?.code == 0 && message.error?.reason == "")
        #expect(message.jsep == nil)
        let many = try #require(JanusMessage(text: #"{"janus":"slowlink","lost":4000000000}"#))
        #expect(many.lost == 1_000_000)
    }

    @Test func nestingDeeperThanTheLimitIsRefused() {
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        #expect(JanusJSON(json: Data(deep.utf8)) == nil)
        #expect(JanusMessage(text: #"{"janus":"event","plugindata":{"data":"# + deep + "}}") == nil)
        let shallow = String(repeating: "[", count: 20) + String(repeating: "]", count: 20)
        #expect(JanusJSON(json: Data(shallow.utf8)) != nil)
    }

    @Test func requestsGoOutAsJSONWithIdsDigitForDigit() throws {
        let request: JanusJSON = [
            "janus": "message", "session_id": 9_007_199_254_740_991,
            "body": ["request": "join", "room": 1234, "audio": true],
        ]
        let text = String(decoding: request.jsonData, as: UTF8.self)
        #expect(
            text
                == #"{"body":{"audio":true,"request":"join","room":1234},"janus":"message","session_id":9007199254740991}"#
        )
        #expect(JanusJSON(json: Data(text.utf8)) == request)
    }
}
