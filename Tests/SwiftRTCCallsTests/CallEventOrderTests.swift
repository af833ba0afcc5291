import Foundation
import SwiftRTCICE
import SwiftRTCSignaling
import TestScheduling
import Testing

@testable import SwiftRTCCalls

/// The order of a connection's last events, as in the mobile call SDKs: a hang-up
/// disconnects then closes each connection that was up; a connection that never comes up
/// within the disconnect interval fails, is closed, and the call ends `timed_out`.
@Suite(.serialized, .realTime) struct CallEventOrderTests {
    /// The connection events with `user`, in order: disconnected, failed, closed.
    static func endings(_ events: [CallSessionEvent], with user: String) -> [String] {
        events.compactMap {
            switch $0 {
            case .disconnected(user): "disconnected"
            case .connectionFailed(user): "failed"
            case .connectionClosed(user): "closed"
            default: nil
            }
        }
    }

    @Test func aHangUpDisconnectsThenClosesOnBothSides() async throws {
        let (alice, bob, outgoing, incoming) = try await CallReconnectionTests.connectedCall(
            InProcessSignalingHub(),
            configuration: testConfiguration,
            clock: testClock
        )
        // The start of the call is known while it goes on.
        let answered = try #require(await outgoing.answeredAt)
        #expect(answered >= (await outgoing.startedAt) && answered <= Date())
        #expect(await incoming.answeredAt != nil)
        await outgoing.hangUp()
        #expect(await alice.wait(outgoing, "alice ends") { $0.record != nil })
        #expect(await bob.wait(incoming, "bob ends") { $0.record != nil })
        #expect(Self.endings(alice.events(outgoing), with: "bob") == ["disconnected", "closed"])
        #expect(Self.endings(bob.events(incoming), with: "alice") == ["disconnected", "closed"])
        let results = (await outgoing.record?.result, await incoming.record?.result)
        #expect(results.0 == .completed && results.1 == .completed)
    }

    @Test func aConnectionThatNeverComesUpEndsTimedOut() async throws {
        // Relayed candidates only, from a TURN server where nothing listens: no pair can form,
        // and ICE waits for candidates that never come.
        let configuration = CallConfiguration(
            iceServers: [try IceServer(url: "turn:127.0.0.1:9", username: "u", credential: "p")],
            iceTransportPolicy: .relay,
            gatherAddresses: ["127.0.0.1"],
            dialingTimeInterval: .seconds(3),
            answerTimeInterval: .seconds(600),
            disconnectTimeInterval: .seconds(10)
        )
        let hub = InProcessSignalingHub()
        let alice = await Bot("alice", hub: hub, configuration: configuration)
        let bob = await Bot("bob", hub: hub, configuration: configuration)
        let outgoing = try await alice.client.createSession(opponents: ["bob"], conferenceType: .audio)
        await alice.follow(outgoing)
        let started = ContinuousClock.now
        try await outgoing.startCall()
        let (incoming, _) = try #require(await bob.incoming())
        try await incoming.acceptCall()
        #expect(await alice.wait(outgoing, timeout: .seconds(40), "alice ends") { $0.record != nil })
        #expect(await bob.wait(incoming, timeout: .seconds(40), "bob ends") { $0.record != nil })
        let after = ContinuousClock.now - started
        print("never connected: ended after \(after)")
        // The disconnect interval is real time: not before 10 s.
        #expect(after >= .seconds(10))
        #expect(await outgoing.record?.result == .timedOut, "\(alice.events(outgoing).map(describe))")
        #expect(await incoming.record?.result == .timedOut, "\(bob.events(incoming).map(describe))")
        // Whichever side's timer fires first fails its connection and hangs up with timed_out;
        // the other closes on that hang-up, unless its own timer came first too. Never a
        // disconnect: the connection was never up.
        let alices = Self.endings(alice.events(outgoing), with: "bob")
        let bobs = Self.endings(bob.events(incoming), with: "alice")
        for endings in [alices, bobs] { #expect(endings == ["failed", "closed"] || endings == ["closed"]) }
        #expect(alices.contains("failed") || bobs.contains("failed"), "\(alices) \(bobs)")
    }
}
