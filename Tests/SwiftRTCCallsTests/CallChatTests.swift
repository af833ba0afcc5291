import Foundation
import SwiftRTCDataChannel
import SwiftRTCSignaling
import Synchronization
import TestScheduling
import Testing

@testable import SwiftRTCCalls

/// The chat channel of a call: one negotiated data channel per pair of participants, messages
/// to one or to all, each received with its sender.
@Suite(.serialized, .realTime) struct CallChatTests {
    /// What one participant's ``CallSession/messages()`` gave, as `from: text` (bytes as
    /// `from: [n bytes]`).
    final class Inbox: Sendable {
        let name: String
        let lines = Mutex<[String]>([])
        let finished = Mutex(false)

        init(_ name: String, _ session: CallSession) async {
            self.name = name
            let messages = await session.messages()
            Task {
                for await chat in messages {
                    let text =
                        switch chat.message {
                        case .text(let text): text
                        case .binary(let bytes): "[\(bytes.count) bytes]"
                        }
                    lines.withLock { $0.append("\(chat.from): \(text)") }
                }
                finished.withLock { $0 = true }
            }
        }

        var received: [String] { lines.withLock { $0 } }

        /// Waits until `count` messages came, or 20 s.
        func wait(for count: Int) async -> [String] {
            let deadline = ContinuousClock.now + .seconds(20)
            while received.count < count, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            #expect(received.count >= count, "\(name) got \(received)")
            return received
        }

        func waitFinished() async -> Bool {
            let deadline = ContinuousClock.now + .seconds(10)
            while !finished.withLock({ $0 }), ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            return finished.withLock { $0 }
        }
    }

    /// Alice calls bob and carol (a mesh of three on loopback): what alice sends to all before
    /// anyone answered waits and arrives first; then each sends to all or to one, and each
    /// message arrives only where it was sent, in order, with its sender; a participant who left
    /// cannot be written to, and the streams end with the call.
    @Test func aMeshOfThreeChatsToOneAndToAllWithTheSender() async throws {
        let hub = InProcessSignalingHub()
        let alice = await Bot("alice", hub: hub), bob = await Bot("bob", hub: hub), carol = await Bot("carol", hub: hub)
        let outgoing = try await alice.client.createSession(opponents: ["bob", "carol"], conferenceType: .audio)
        await alice.follow(outgoing)
        let aliceInbox = await Inbox("alice", outgoing)
        do {
            _ = try await outgoing.sendToAll(.text("too early"))
            Issue.record("a message went out before the call started")
        } catch {
            #expect(error == .messageNotSent(to: "everyone", reason: "nobody is connected"))
        }
        try await outgoing.startCall()
        // Before anyone answered: it waits for each chat channel to open.
        #expect(try await outgoing.sendToAll(.text("early")) == ["bob", "carol"])

        var sessions: [String: CallSession] = ["alice": outgoing]
        var inboxes: [String: Inbox] = ["alice": aliceInbox]
        for (name, bot) in [("bob", bob), ("carol", carol)] {
            let session = try #require(await bot.incoming(id: outgoing.id))
            inboxes[name] = await Inbox(name, session)
            try await session.acceptCall()
            sessions[name] = session
        }
        let bots = ["alice": alice, "bob": bob, "carol": carol]
        for (name, bot) in bots {
            let session = try #require(sessions[name])
            for other in bots.keys where other != name {
                #expect(await bot.wait(session, "\(name) connected to \(other)") { $0.contains(connectedTo: other) })
            }
        }
        let bobSession = try #require(sessions["bob"]), carolSession = try #require(sessions["carol"])
        let bobInbox = try #require(inboxes["bob"]), carolInbox = try #require(inboxes["carol"])

        #expect(await bobInbox.wait(for: 1) == ["alice: early"])
        #expect(await carolInbox.wait(for: 1) == ["alice: early"])
        #expect(try await outgoing.sendToAll(.text("hello all")) == ["bob", "carol"])
        try await bobSession.send(.text("psst, carol"), to: "carol")
        #expect(try await carolSession.sendToAll(.binary([1, 2, 3])) == ["alice", "bob"])
        #expect(try await bobSession.sendToAll(.text("bob here")).sorted() == ["alice", "carol"])

        // Each side's messages per sender in the order sent; nothing where it was not sent.
        func from(_ sender: String, _ lines: [String]) -> [String] { lines.filter { $0.hasPrefix("\(sender): ") } }
        let atAlice = await aliceInbox.wait(for: 2)
        let atBob = await bobInbox.wait(for: 3)
        let atCarol = await carolInbox.wait(for: 4)
        try await Task.sleep(for: .milliseconds(200))  // anything misrouted would be here by now
        #expect(Set(aliceInbox.received) == ["bob: bob here", "carol: [3 bytes]"], "\(atAlice)")
        #expect(from("alice", bobInbox.received) == ["alice: early", "alice: hello all"], "\(atBob)")
        #expect(from("carol", bobInbox.received) == ["carol: [3 bytes]"] && bobInbox.received.count == 3)
        #expect(from("alice", carolInbox.received) == ["alice: early", "alice: hello all"], "\(atCarol)")
        #expect(from("bob", carolInbox.received) == ["bob: psst, carol", "bob: bob here"])
        #expect(carolInbox.received.count == 4)

        // Nobody by that name; then someone who left.
        await #expect(throws: CallError.messageNotSent(to: "mallory", reason: "no connection with mallory")) {
            try await outgoing.send(.text("hi"), to: "mallory")
        }
        await carolSession.hangUp()
        #expect(await alice.wait(outgoing, "carol leaves") { $0.hungUp(by: "carol") != nil })
        await #expect(throws: CallError.messageNotSent(to: "carol", reason: "no connection with carol")) {
            try await outgoing.send(.text("still there?"), to: "carol")
        }
        #expect(try await outgoing.sendToAll(.text("just us")) == ["bob"])
        #expect(await bobInbox.wait(for: 4).last == "alice: just us")
        #expect(await carolInbox.waitFinished(), "carol's stream ends with her call")

        await outgoing.hangUp()
        await bobSession.hangUp()
        #expect(await aliceInbox.waitFinished())
        #expect(await bobInbox.waitFinished())
    }
}
