import Foundation
import Testing
@testable import SwiftRTCSignaling

@Test func messageRoundTripsThroughJSON() throws {
    let message = SignalingMessage(type: .hangUp, session: "s1", from: "alice", to: ["bob"], fields: ["reason": "done"])
    let json = try JSONEncoder().encode(message)
    #expect(String(decoding: json, as: UTF8.self).contains("\"hang_up\""))
    #expect(try JSONDecoder().decode(SignalingMessage.self, from: json) == message)
    #expect(throws: DecodingError.self) {
        try JSONDecoder().decode(SignalingMessage.self, from: Data(#"{"type":"dance"}"#.utf8))
    }
}
