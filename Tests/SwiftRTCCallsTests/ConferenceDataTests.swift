import Foundation
import SwiftRTCDataChannel
import SwiftRTCJanus
import SwiftRTCPeer
import Synchronization
import TestScheduling
import Testing

@testable import SwiftRTCCalls

/// Data in a room of a real Janus (in a network namespace of the test's): what a publisher
/// sends reaches every bot subscribed to it, on a channel that names the sender, text and
/// binary, in order; a listener receives but cannot send.
@Suite(.serialized, .realTime) struct ConferenceDataTests {
    /// The messages a bot received, by publisher, as they come.
    final class Inbox: Sendable {
        private let received = Mutex<[Int64: [DataChannel.Message]]>([:])
        init(_ session: ConferenceSession) {
            let events = session.events
            Task {
                for await event in events {
                    guard case .remoteDataChannel(let publisher, let channel) = event else { continue }
                    Task {
                        for await message in channel.messages {
                            self.received.withLock { $0[publisher, default: []].append(message) }
                        }
                    }
                }
            }
        }
        func from(_ publisher: Int64) -> [DataChannel.Message] { received.withLock { $0[publisher] ?? [] } }
        /// Messages as short descriptions (a failure prints these, not 60 KB of bytes).
        static func summary(_ messages: [DataChannel.Message]) -> [String] {
            messages.map { message in
                switch message {
                case .text(let text): "text \(text.prefix(40))"
                case .binary(let bytes): "\(bytes.count) bytes"
                }
            }
        }
    }

    /// The messages received after the "ready"s are those sent, byte for byte, in order (a
    /// failure shows their kinds and sizes).
    static func expect(
        _ received: [DataChannel.Message],
        _ sent: [DataChannel.Message],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let same = Array(received.drop { $0 == .text("ready") }) == sent
        #expect(same, "received \(Inbox.summary(received))", sourceLocation: sourceLocation)
    }

    @Test func whatAPublisherSendsReachesEverySubscriberWithItsName() async throws {
        try await ConferenceMediaTests.inRoom { janus, options in
            var options = options
            options.data = true
            options.display = "alice"
            let alice = try await ConferenceSession.join(janus, room: 3141, options: options)
            let aliceInbox = Inbox(alice)
            // Carol publishes data only: no audio, no video.
            options.display = "carol"
            options.audio = false
            options.video = false
            let carol = try await ConferenceSession.join(janus, room: 3141, options: options)
            let carolInbox = Inbox(carol)
            options.role = .listener
            options.display = "bob"
            let bob = try await ConferenceSession.join(janus, room: 3141, options: options)
            let bobInbox = Inbox(bob)

            let block = (0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let large = (0..<60_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            let fromAlice: [DataChannel.Message] = [.text("hello from alice"), .binary(block), .binary(large)]
            let fromCarol: [DataChannel.Message] = [.text("hi from carol: ünïcödé ✓")]
            // Janus relays a message only to the subscriptions whose association is up by then,
            // and keeps nothing: each publisher says "ready" until everyone has heard it once.
            let ready = DataChannel.Message.text("ready")
            let heard = await ConferenceMediaTests.waitUntil(.seconds(20)) {
                try? await alice.send(ready)
                try? await carol.send(ready)
                try? await Task.sleep(for: .milliseconds(200))
                return !bobInbox.from(alice.id).isEmpty && !bobInbox.from(carol.id).isEmpty
                    && !carolInbox.from(alice.id).isEmpty && !aliceInbox.from(carol.id).isEmpty
            }
            #expect(heard)
            for message in fromAlice { try await alice.send(message) }
            for message in fromCarol { try await carol.send(message) }

            #expect(
                await ConferenceMediaTests.waitUntil {
                    bobInbox.from(alice.id).last == fromAlice.last && bobInbox.from(carol.id).last == fromCarol.last
                        && carolInbox.from(alice.id).last == fromAlice.last
                        && aliceInbox.from(carol.id).last == fromCarol.last
                }
            )
            Self.expect(bobInbox.from(alice.id), fromAlice)
            Self.expect(bobInbox.from(carol.id), fromCarol)
            Self.expect(carolInbox.from(alice.id), fromAlice)
            Self.expect(aliceInbox.from(carol.id), fromCarol)
            #expect(aliceInbox.from(alice.id).isEmpty, "Janus never relays a publisher's data back to it")

            // Quiet for 8 s: Janus sends nothing on these connections (no media plays), and
            // consent holds (RFC 7675) on what is authentic: SCTP's heartbeats, about every 2 s,
            // and their acks, as DTLS records. (SRTP alone counted before, and usrsctp's own
            // heartbeat interval is 30 s: each connection went `disconnected` after 5 s and
            // `failed` after 30.)
            var states: Set<PeerConnectionState> = []
            let quietEnd = ContinuousClock.now + .seconds(8)
            while ContinuousClock.now < quietEnd {
                for session in [alice, carol, bob] {
                    if let publishing = await session.publishingConnection {
                        states.insert(await publishing.connectionState)
                    }
                    if let subscription = await session.subscriptionConnection {
                        states.insert(await subscription.connectionState)
                    }
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(states == [.connected], "\(states)")

            let rows = await bob.publisherStats()
            let readies = (bobInbox.from(alice.id).count - 3, bobInbox.from(carol.id).count - 1)
            #expect(rows.first { $0.id == alice.id }?.dataMessagesReceived == 3 + readies.0, "\(rows)")
            #expect(rows.first { $0.id == carol.id }?.dataMessagesReceived == 1 + readies.1, "\(rows)")
            #expect(await bob.dataChannelsRefused == 0)

            await #expect(throws: ConferenceError.messageNotSent("a listener publishes nothing")) {
                try await bob.send(.text("a listener has no channel"))
            }
            print("conference data: bob received \(rows.map { ($0.display ?? "", $0.dataMessagesReceived) })")
            await bob.leave()
            await carol.leave()
            await alice.leave()
        }
    }
}
