import Foundation
import JanusTestSupport
import SwiftRTCJanus
import SwiftRTCMedia
import SwiftRTCPeer
import Synchronization
import TestScheduling
import Testing

@testable import SwiftRTCCalls

/// A publisher and a listener of ours, in this process, in a room of a real Janus (in a network
/// namespace of the test's, joined to this one by a veth pair): muting stops what the room
/// gets of that kind and unmuting brings it back; unpublishing tells the room the publisher
/// left, publishing again tells it that it came back, and its media flows again.
@Suite(.serialized, .realTime) struct ConferenceMediaTests {
    /// The listener's events, kept as they come; its audio tracks listened to (a remote audio
    /// track nobody takes is not decoded).
    final class Events: Sendable {
        private let list = Mutex<[ConferenceSessionEvent]>([])
        init(_ session: ConferenceSession) {
            let events = session.events
            Task {
                for await event in events {
                    if case .remoteTrack(_, let track) = event, track.kind == .audio { track.setAudioSink { _ in } }
                    self.list.withLock { $0.append(event) }
                }
            }
        }
        var all: [ConferenceSessionEvent] { list.withLock { $0 } }
    }

    static func waitUntil(_ timeout: Duration = .seconds(15), _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return await condition()
    }

    /// What the listener decoded of `publisher` so far: audio and video frames.
    static func decoded(_ listener: ConferenceSession, of publisher: Int64) async -> (audio: Int, video: Int) {
        let row = await listener.publisherStats().first { $0.id == publisher }
        return (row?.audioFramesDecoded ?? 0, row?.videoFramesDecoded ?? 0)
    }

    /// How many frames of each kind the listener decodes of `publisher` in `duration`.
    static func rate(
        _ listener: ConferenceSession,
        of publisher: Int64,
        over duration: Duration
    ) async throws -> (audio: Int, video: Int) {
        let before = await decoded(listener, of: publisher)
        try await Task.sleep(for: duration)
        let after = await decoded(listener, of: publisher)
        return (after.audio - before.audio, after.video - before.video)
    }

    /// A real Janus in a network namespace of the test's, a session with it, and the options
    /// of a bot there (gathering on the link to Janus, making the room) for `body`; the session
    /// ends after it.
    static func inRoom(_ body: (JanusSession, ConferenceSession.Options) async throws -> Void) async throws {
        try #require(JanusServer.isInstalled, "janus is not installed: run Scripts/bootstrap.sh --tests")
        try await JanusNetwork.withJanus { network, server in
            let janus = try await JanusSession.connect(JanusSession.Configuration(url: server.url))
            var options = ConferenceSession.Options()
            options.connection = PeerConnection.Configuration(gatherAddresses: [network.localAddress])
            options.createsRoom = true
            try await body(janus, options)
            await janus.destroy()
        }
    }

    @Test func muteUnpublishAndPublishAgainReachTheRoom() async throws {
        try await Self.inRoom { janus, options in
            var options = options
            options.display = "alice"
            let alice = try await ConferenceSession.join(janus, room: 2718, options: options)
            let audio = try #require(alice.localAudioTrack), video = try #require(alice.localVideoTrack)
            _ = audio.play(ToneGenerator())
            _ = video.play(TestPatternSource())
            options.role = .listener
            options.display = "bob"
            let bob = try await ConferenceSession.join(janus, room: 2718, options: options)
            let events = Events(bob)

            // Both kinds flow: 50 audio and some 30 video frames a second.
            #expect(await Self.waitUntil { await Self.decoded(bob, of: alice.id).video > 30 })
            let flowing = try await Self.rate(bob, of: alice.id, over: .seconds(2))
            #expect(flowing.audio > 80 && flowing.video > 30, "\(flowing)")

            // Muted audio: Janus relays none of it; video goes on. Unmuted: it is back.
            try await alice.setMuted(true, kind: .audio)
            try await Task.sleep(for: .milliseconds(500))
            let muted = try await Self.rate(bob, of: alice.id, over: .seconds(2))
            #expect(muted.audio < 5 && muted.video > 30, "\(muted)")
            try await alice.setMuted(false, kind: .audio)
            try await Task.sleep(for: .milliseconds(500))
            let unmuted = try await Self.rate(bob, of: alice.id, over: .seconds(2))
            #expect(unmuted.audio > 80, "\(unmuted)")

            // Unpublished: the room is told she left. Published again: told she is back, and her
            // media flows to the listener again.
            try await alice.unpublish()
            #expect(await alice.publishingConnection == nil)
            #expect(
                await Self.waitUntil(.seconds(10)) {
                    events.all.contains { if case .publisherLeft(alice.id) = $0 { true } else { false } }
                },
                "\(events.all)"
            )
            try await alice.publish()
            #expect(
                await Self.waitUntil(.seconds(10)) {
                    events.all.filter { event in
                        if case .publishersReceived(let list) = event {
                            list.contains { $0.id == alice.id }
                        } else {
                            false
                        }
                    }.count == 2
                },
                "\(events.all)"
            )
            #expect(await Self.waitUntil { try! await Self.rate(bob, of: alice.id, over: .seconds(1)).audio > 30 })
            print(
                "conference media: flowing \(flowing), muted audio \(muted), unmuted \(unmuted) (frames in 2 s); republished: \(await Self.decoded(bob, of: alice.id))"
            )
            await bob.leave()
            await alice.leave()
        }
    }
}
