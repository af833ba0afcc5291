import Foundation
import SwiftRTCSignaling
import SwiftRTCSignalingServer

/// The signaling server's own hub (`SignalingHub`, with its session state and in-memory SQLite
/// call log), as strangers and users drive it: each line of the input (`\n`-separated) is one
/// step, its first byte choosing the connection (six, from three addresses: the low three
/// bits) and what happens (the next two): a text message (the rest of the line, as a
/// WebSocket reader hands it over: parsed, a `hello` authenticated against alice's, bob's and
/// carol's tokens, anything else routed by the server's session rules), the connection
/// closing, or a sweep of the hub's timers. At the end every connection closes, and every
/// message the server wrote must decode as a client decodes it.
public func fuzzServerSignaling(_ bytes: UnsafeRawBufferPointer) {
    var steps: [(slot: Int, action: UInt8, text: Data)] = []
    var start = 0
    while start < bytes.count, steps.count < 64 {
        var end = start
        while end < bytes.count, bytes[end] != 0x0A { end += 1 }
        defer { start = end + 1 }
        guard end > start else { continue }
        let head = bytes[start]
        steps.append((Int(head & 0x07) % 6, (head >> 3) & 0x03, Data(bytes[(start + 1)..<end])))
    }
    guard !steps.isEmpty else { return }
    let script = steps
    let written = runBlocking { () -> [String] in
        let server = SignalingServerHarness()
        for step in script {
            switch step.action {
            case 1: await server.close(slot: step.slot)
            case 2: await server.sweep()
            default: await server.receive(step.text, slot: step.slot)
            }
        }
        return await server.finish()
    }
    for text in written {
        guard (try? SignalingMessage(json: Data(text.utf8))) != nil else {
            fatalError("the server wrote a message its clients cannot decode: \(text)")
        }
    }
}
