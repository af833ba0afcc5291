import Foundation
import SwiftRTCSignaling
import Testing

@testable import SwiftRTCCalls

/// ``CallConfiguration/maxConcurrentCalls``: a client at its limit rejects a further incoming
/// call as busy by itself, before the application sees it, and takes calls again once one ended.
@Suite(.serialized, .realTime) struct CallBusyPolicyTests {
    @Test func aCallBeyondTheLimitIsRejectedAsBusyAtOnce() async throws {
        let hub = InProcessSignalingHub()
        var oneAtATime = testConfiguration
        oneAtATime.maxConcurrentCalls = 1
        let alice = await Bot("alice", hub: hub), carol = await Bot("carol", hub: hub)
        let bob = await Bot("bob", hub: hub, configuration: oneAtATime)
        // Alice's call rings: even not yet accepted it counts.
        let first = try await alice.client.createSession(opponents: ["bob"], conferenceType: .audio)
        await alice.follow(first)
        try await first.startCall()
        let (incoming, _) = try #require(await bob.incoming())

        let second = try await carol.client.createSession(opponents: ["bob"], conferenceType: .audio)
        await carol.follow(second)
        let start = ContinuousClock.now
        try await second.startCall()
        #expect(await carol.wait(second, "busy") { $0.record != nil })
        let waited = ContinuousClock.now - start
        #expect(carol.events(second).contains { if case .rejected("bob", _, true) = $0 { true } else { false } })
        #expect(await second.record?.result == .busy)
        // At once: well inside the first dialing interval (3 s, 150 ms at test speed).
        #expect(waited < .seconds(2), "\(waited)")
        // Bob's application never saw it; its end was reported, busy.
        let seen = bob.clientEvents.withLock { $0 }
        #expect(!seen.contains { if case .incomingSession(let s, _) = $0 { s.id == second.id } else { false } })
        #expect(
            seen.contains {
                if case .sessionEnded(let s, let r) = $0 { s.id == second.id && r.result == .busy } else { false }
            }
        )

        // The first call goes on and connects; once it ended, carol gets through.
        try await incoming.acceptCall()
        #expect(await alice.wait(first, "connected") { $0.contains(connectedTo: "bob") })
        await first.hangUp()
        #expect(await bob.wait(incoming, "ended") { $0.record != nil })
        let third = try await carol.client.createSession(opponents: ["bob"], conferenceType: .audio)
        await carol.follow(third)
        try await third.startCall()
        let later = try #require(await bob.incoming(id: third.id))
        try await later.acceptCall()
        #expect(await carol.wait(third, "connected") { $0.contains(connectedTo: "bob") })
        await third.hangUp()
    }

    @Test func withoutALimitTheApplicationDecides() async throws {
        let hub = InProcessSignalingHub()
        let alice = await Bot("alice", hub: hub), bob = await Bot("bob", hub: hub), carol = await Bot("carol", hub: hub)
        let first = try await alice.client.createSession(opponents: ["bob"], conferenceType: .audio)
        try await first.startCall()
        _ = try #require(await bob.incoming())
        let second = try await carol.client.createSession(opponents: ["bob"], conferenceType: .audio)
        try await second.startCall()
        // Both ring at bob's.
        #expect(await bob.incoming(id: second.id) != nil)
        #expect(testConfiguration.maxConcurrentCalls == nil)
        await first.hangUp()
        await second.hangUp()
    }
}
