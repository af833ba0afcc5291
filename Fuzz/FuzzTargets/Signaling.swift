import Foundation
import SwiftRTCSignaling

/// The signaling wire protocol as a server or bot takes it from strangers: each line of the
/// input (`\n`-separated) is one message, its first byte choosing the sender (alice, bob,
/// carol or mallory) and the rest its JSON text.
///
/// Each message goes through `SignalingMessage(json:)` (decoding and `validate()`); one that
/// decodes must encode (`jsonData()`) to JSON that decodes to the same message. Every
/// message that decodes is then routed by an `InProcessSignalingHub` (the server's session
/// rules: `from` overwritten, only the initiator calls, only members send and receive a
/// session's messages) as the sender's, and observed by a `CallLogBuilder` (the call-log
/// end-result rules) under a clock the input moves; at the end everyone disconnects.
///
/// The server's own `SignalingHub` is internal to SwiftRTCSignalingServer and needs its
/// SQLite call log and WebSocket connections; the in-process hub applies the same rules.
public func fuzzSignaling(_ bytes: UnsafeRawBufferPointer) {
    let users = ["alice", "bob", "carol", "mallory"]
    var messages: [(sender: String, message: SignalingMessage)] = []
    var start = 0
    while start < bytes.count {
        var end = start
        while end < bytes.count, bytes[end] != 0x0A { end += 1 }
        defer { start = end + 1 }
        guard end > start else { continue }
        let sender = users[Int(bytes[start]) % users.count]
        let json = Data(bytes[(start + 1)..<end])
        guard let message = try? SignalingMessage(json: json) else { continue }
        let encoded = message.jsonData()
        guard let again = try? SignalingMessage(json: encoded) else {
            fatalError(
                "a message that decoded encodes to JSON that does not: \(String(decoding: encoded, as: UTF8.self))"
            )
        }
        guard again == message else {
            fatalError("JSON round trip changed the message:\n\(message)\n\(again)")
        }
        messages.append((sender, message))
    }
    guard !messages.isEmpty else { return }
    var log = CallLogBuilder()
    var time = Date(timeIntervalSince1970: 1_800_000_000)
    for (index, (sender, message)) in messages.enumerated() {
        var message = message
        message.from = sender
        time += Double(index % 7)
        _ = log.observe(message, at: time)
    }
    for user in users { _ = log.disconnected(user: user, at: time + 60) }

    let routed = messages
    runBlocking {
        let hub = InProcessSignalingHub()
        var channels: [String: InProcessSignalingChannel] = [:]
        for user in users.dropLast() { channels[user] = hub.connect(user: user) }
        for (sender, message) in routed {
            let channel = channels[sender] ?? hub.connect(user: sender)
            channels[sender] = channel
            try? await channel.send(message)
        }
        _ = hub.callRecords
        for channel in channels.values { await channel.close() }
    }
}
