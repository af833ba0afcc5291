import Foundation
import SwiftRTCSignaling
import Testing

@testable import SwiftRTCSignalingServer

/// Malformed and hostile input: each kind is answered with an error reply saying what is
/// wrong, and the same connection (and the server) keeps serving.
@Suite struct HostileInputTests {
    /// What a well-behaved request gets afterwards: the server still answers.
    /// Replies still on their way from before (a flood's messages that tokens refilled while
    /// it was read, on a loaded machine, and their refusals) are passed over.
    static func stillServes(_ raw: RawClient) async throws {
        raw.send(.text(#"{"type":"callLogQuery","id":"after"}"#))
        for _ in 0..<100 {
            let reply = try await raw.next()
            switch reply.body {
            case .callLog(let log) where log.replyTo == "after":
                return
            case .callLog(let log) where log.replyTo?.hasPrefix("f") == true:
                continue
            case .error(let error) where error.code == .tooManyMessages:
                continue
            default:
                Issue.record("expected the callLog reply to \"after\", got \(reply)")
                return
            }
        }
        Issue.record("no reply to \"after\" within 100 messages")
    }

    @Test(arguments: [
        (RawClient.Command.text("not json at all"), SignalingErrorCode.malformed, "not a JSON message"),
        (.text("[1,2,3]"), .malformed, "not a JSON message"),
        (.text("{}"), .malformed, "message type"),
        (.text(#"{"type":"teleport","to":["bob"]}"#), .malformed, "unknown message type"),
        (.text(#"{"type":"call","to":["bob"],"session":"x"}"#), .malformed, "missing field"),
        (.text(#"{"type":"candidate","to":"bob","session":"x","candidate":"c"}"#), .malformed, "field 'to'"),
        (.text(#"{"type":"offer","to":["bob"],"session":"","sdp":"v=0","iceRestart":false}"#), .malformed, "session"),
        (
            .text(
                #"{"type":"offer","to":["bob"],"session":"\#(String(repeating: "s", count: 200))","sdp":"v=0","iceRestart":false}"#
            ), .malformed, "session id"
        ),
        (
            .text(#"{"type":"offer","to":["alice"],"session":"x","sdp":"v=0","iceRestart":false}"#), .malformed,
            "its sender"
        ),
        (.text(#"{"type":"welcome","user":"root"}"#), .malformed, "sent by the server"),
        (.text(#"{"type":"hello","token":"token-of-alice-0123456789"}"#), .malformed, "already authenticated"),
        (.text(#"{"type":"callLogQuery","limit":100000}"#), .malformed, "limit"),
        (
            .text(
                #"{"type":"candidate","to":["bob"],"session":"x","candidate":"c","sdpMLineIndex":9223372036854775807}"#
            ), .malformed, "sdpMLineIndex"
        ),
        (
            .text(#"{"type":"candidate","to":["bob"],"session":"x","candidate":"c","sdpMLineIndex":-1}"#), .malformed,
            "sdpMLineIndex"
        ),
        (.binary(Array("{\"type\":\"callLogQuery\"}".utf8)), .malformed, "binary"),
        (.text(String(repeating: "x", count: SignalingLimits.maxMessageBytes + 1)), .tooLarge, "at most"),
        (.fragments(Array(repeating: String(repeating: "y", count: 30_000), count: 4)), .tooLarge, "at most"),
    ])
    func malformedMessagesGetAnErrorAndTheServerServesOn(
        input: RawClient.Command,
        code: SignalingErrorCode,
        reason: String
    ) async throws {
        let server = try await RunningServer.start()
        let raw = try await server.raw()
        try await raw.login("alice")
        raw.send(input)
        let error = try await raw.nextError()
        #expect(error.code == code)
        #expect(error.reason.contains(reason), "\(error.reason)")
        try await Self.stillServes(raw)
        await raw.close()
        await server.stop()
    }

    @Test func theIdOfAnUnparsableMessageIsEchoed() async throws {
        let server = try await RunningServer.start()
        let raw = try await server.raw()
        try await raw.login("alice")
        raw.send(.text(#"{"type":"offer","id":"m-42","to":["bob"],"session":"x"}"#))
        let error = try await raw.nextError()
        #expect(error.replyTo == "m-42")
        #expect(error.reason == "missing field 'sdp'")
        await raw.close()
        await server.stop()
    }

    @Test func aFrameOverTheLimitClosesOnlyThatConnection() async throws {
        var configuration = SignalingServer.Configuration()
        configuration.maxFrameBytes = 128 * 1024
        let server = try await RunningServer.start(configuration)
        let bystander = try await Peer.connect("bob", to: server)
        let raw = try await server.raw()
        try await raw.login("alice")
        raw.send(.text(String(repeating: "z", count: 200 * 1024)))
        try await raw.inbox.waitFinished()
        // The server and its other connections go on.
        #expect(try await bystander.callLog() == [])
        let again = try await server.raw()
        try await again.login("alice")
        try await Self.stillServes(again)
        await again.close()
        await bystander.close()
        await server.stop()
    }

    @Test func aFloodIsRefusedPastTheRateLimit() async throws {
        var configuration = SignalingServer.Configuration()
        configuration.messagesPerSecond = 1
        configuration.messageBurst = 20
        let server = try await RunningServer.start(configuration)
        let raw = try await server.raw()
        try await raw.login("alice")
        let sent = ContinuousClock.now
        for index in 0..<60 { raw.send(.text(#"{"type":"callLogQuery","id":"f\#(index)"}"#)) }
        // The burst is answered (less the token the hello took) up to the first refusal; the
        // flood past it gets one refusal a second, not one per message (it costs the hub
        // nothing more), and every message of it is counted.
        var answered = 0
        while true {
            let message = try await raw.next()
            if case .callLog = message.body {
                answered += 1
                continue
            }
            guard case let .error(error) = message.body else {
                Issue.record("unexpected \(message)")
                break
            }
            #expect(error.code == .tooManyMessages)
            break
        }
        #expect(answered >= configuration.messageBurst - 1)
        // Tokens the bucket got back (1 a second) while the 60 were read let a few more through.
        let refills = Int((ContinuousClock.now - sent).seconds * configuration.messagesPerSecond) + 1
        let deadline = ContinuousClock.now + .seconds(30)
        while server.server.counters.messagesOverRateLimit < 60 - answered - refills, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(server.server.counters.messagesOverRateLimit >= 60 - answered - refills)
        // The bucket refills: the connection is served again.
        try await Task.sleep(for: .milliseconds(1_500))
        try await Self.stillServes(raw)
        await raw.close()
        await server.stop()
    }

    /// By default a frame may be twice the largest message (128 KiB): Hummingbird buffers a
    /// whole frame, so this bounds what a connection holds (it was 1 MiB).
    @Test func aFrameOverTheDefaultLimitClosesTheConnection() async throws {
        let server = try await RunningServer.start()
        #expect(server.server.configuration.maxFrameBytes == 128 * 1024)
        let raw = try await server.raw()
        try await raw.login("alice")
        raw.send(.text(String(repeating: "z", count: 128 * 1024 + 1)))
        try await raw.inbox.waitFinished()
        // A message over the message limit within the frame limit is answered (413) and counted.
        let again = try await server.raw()
        try await again.login("alice")
        again.send(.text(String(repeating: "z", count: 100 * 1024)))
        #expect(try await again.nextError().code == .tooLarge)
        #expect(server.server.counters.messagesTooLarge == 1)
        try await Self.stillServes(again)
        await again.close()
        await server.stop()
    }

    /// Fragments of a message that fits are reassembled, not refused.
    @Test func fragmentedMessagesAreReassembled() async throws {
        let server = try await RunningServer.start()
        let raw = try await server.raw()
        try await raw.login("alice")
        raw.send(.fragments([#"{"type":"callLog"#, #"Query","id":"frag"}"#]))
        let reply = try await raw.next()
        guard case let .callLog(log) = reply.body else {
            Issue.record("expected callLog, got \(reply)")
            return
        }
        #expect(log.replyTo == "frag")
        await raw.close()
        await server.stop()
    }
}
