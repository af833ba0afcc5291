import Foundation
import SwiftRTCICE
import SwiftRTCSignaling
import Synchronization
import TestScheduling
import Testing
import TransportTestSupport

@testable import SwiftRTCCalls

/// Reconnection after a network cut: both bots talk relay-only through a real coturn, and the
/// test cuts the relayed path by freezing coturn (SIGSTOP) for a while. ICE notices the
/// silence (consent freshness: `disconnected` after 5 s), the offerer restarts ICE, and once
/// coturn runs again (SIGCONT) the call comes back; or the disconnect timeout closes it.
@Suite(.serialized, .realTime) struct CallReconnectionTests {
    static func relayConfiguration(_ coturn: Coturn) throws -> CallConfiguration {
        CallConfiguration(
            iceServers: [try IceServer(url: coturn.url(), username: coturn.username, credential: coturn.password)],
            iceTransportPolicy: .relay,
            gatherAddresses: ["127.0.0.1"],
            dialingTimeInterval: .seconds(3),
            answerTimeInterval: .seconds(600),
            disconnectTimeInterval: .seconds(10)
        )
    }

    /// Starts coturn and waits for it off the cooperative pool (the wait blocks).
    static func startCoturn() async throws -> Coturn {
        let coturn = try Coturn()
        let port = coturn.port
        let ready = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread.detachNewThread {
                let deadline = ContinuousClock.now + .seconds(10)
                while ContinuousClock.now < deadline {
                    if stunBindingAnswered(port: port) { return continuation.resume(returning: true) }
                    usleep(20_000)
                }
                continuation.resume(returning: false)
            }
        }
        try #require(ready, "coturn did not answer on port \(port)")
        return coturn
    }

    static func connectedCall(
        _ hub: InProcessSignalingHub,
        configuration: CallConfiguration,
        clock: CallClock
    )
        async throws -> (Bot, Bot, CallSession, CallSession)
    {
        let alice = await Bot("alice", hub: hub, configuration: configuration, clock: clock)
        let bob = await Bot("bob", hub: hub, configuration: configuration, clock: clock)
        let outgoing = try await alice.client.createSession(opponents: ["bob"], conferenceType: .audio)
        await alice.follow(outgoing)
        playMedia(outgoing, frequency: 440)
        try await outgoing.startCall()
        let (incoming, _) = try #require(await bob.incoming())
        playMedia(incoming, frequency: 660)
        try await incoming.acceptCall()
        #expect(await alice.wait(outgoing, "connected") { $0.contains(connectedTo: "bob") })
        #expect(await bob.wait(incoming, "connected") { $0.contains(connectedTo: "alice") })
        return (alice, bob, outgoing, incoming)
    }

    @Test func callReconnectsWithAnIceRestartAfterTheRelayComesBack() async throws {
        let coturn = try await Self.startCoturn()
        defer { coturn.stop() }
        // Timers at half time: the 10 s disconnect timeout lasts 5 s, restarts every 1.5 s.
        let (alice, bob, outgoing, incoming) = try await Self.connectedCall(
            InProcessSignalingHub(),
            configuration: try Self.relayConfiguration(coturn),
            clock: .accelerated(by: 2)
        )
        let pair = await outgoing.stats(for: "bob")?.all(.candidatePair).first { $0.string("state") == "succeeded" }
        #expect(await outgoing.statsString(for: "bob")?.contains("relay") == true, "\(String(describing: pair))")

        coturn.pause()
        #expect(
            await alice.wait(outgoing, timeout: .seconds(15), "disconnected") { events in
                events.contains { if case .reconnectionStateChanged("bob", .reconnecting) = $0 { true } else { false } }
            }
        )
        // (While the relay is frozen ICE may already report the restarted agent connected on
        // its previous pair: what proves the reconnection is media flowing after the resume.)
        try await Task.sleep(for: .seconds(1))
        coturn.resume()

        #expect(
            await alice.wait(outgoing, timeout: .seconds(15), "reconnected") { events in
                events.contains { if case .reconnectionStateChanged("bob", .reconnected) = $0 { true } else { false } }
            }
        )
        // Bob answered the restart offers; his side may not have reported the drop itself (ICE
        // consent runs on the controlling side), but his connection is up again.
        let deadline = ContinuousClock.now + .seconds(15)
        while await incoming.connectionState(for: "alice") != .connected, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(await incoming.connectionState(for: "alice") == .connected)
        #expect(await outgoing.connectionState(for: "bob") == .connected)
        #expect(alice.events(outgoing).states(of: "bob").suffix(3).starts(with: [.connected, .disconnected]))
        #expect(await outgoing.connectionState(for: "bob") == .connected)
        // Media flows again: bob keeps decoding alice's tone.
        let heard = Mutex(0)
        try #require(await incoming.remoteAudioTrack(for: "alice")).setAudioSink { _ in heard.withLock { $0 += 1 } }
        try await Task.sleep(for: .milliseconds(500))
        #expect(heard.withLock { $0 } > 10)
        await outgoing.hangUp()
        #expect(await bob.wait(incoming, "end") { $0.record != nil })
        #expect(await incoming.record?.result == .completed)
    }

    @Test func connectionThatStaysCutEndsAtTheDisconnectTimeout() async throws {
        let coturn = try await Self.startCoturn()
        defer { coturn.stop() }
        let (alice, bob, outgoing, incoming) = try await Self.connectedCall(
            InProcessSignalingHub(),
            configuration: try Self.relayConfiguration(coturn),
            clock: testClock
        )
        coturn.pause()
        #expect(await alice.wait(outgoing, timeout: .seconds(20), "disconnect timeout") { $0.record != nil })
        #expect(
            alice.events(outgoing).contains {
                if case .reconnectionStateChanged("bob", .failed) = $0 { true } else { false }
            }
        )
        #expect(await outgoing.connectionState(for: "bob") == .disconnectTimeout)
        // Dropped, then failed at the timeout, then closed.
        #expect(
            CallEventOrderTests.endings(alice.events(outgoing), with: "bob") == ["disconnected", "failed", "closed"]
        )
        #expect(await outgoing.record?.result == .connectionLost)
        #expect(await bob.wait(incoming, timeout: .seconds(20), "bob ends") { $0.record != nil })
        #expect(await incoming.record?.result == .connectionLost)
    }
}
