import Foundation
import SwiftRTCSignaling
import SwiftRTCSignalingServer
import Testing

@testable import SwiftRTCCalls

/// A `CallClient` whose WebSocket channel fails over from one server to the next: it reports
/// each step as `signaling` events, and calls go on over the new connection.
@Suite struct CallSignalingFailoverTests {
    /// The client's `signaling` events so far.
    private func signaling(_ bot: Bot) -> [SignalingConnectionState] {
        bot.clientEvents.withLock { events in
            events.compactMap { if case let .signaling(state) = $0 { state } else { nil } }
        }
    }

    /// Waits (polling) until `condition` holds over the client's `signaling` events.
    private func wait(_ bot: Bot, _ what: String, until condition: ([SignalingConnectionState]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if condition(signaling(bot)) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("timed out waiting for \(what); signaling events: \(signaling(bot))")
        return false
    }

    @Test func aClientReportsItsChannelMovingToTheNextServer() async throws {
        let (first, firstURL, firstRunning) = try await CallServerTests.startServer()
        let (second, secondURL, secondRunning) = try await CallServerTests.startServer()
        defer {
            Task {
                await second.shutdown()
                _ = await secondRunning.result
            }
        }
        let channel = try await WebSocketSignalingChannel.connect(
            to: [firstURL, secondURL],
            token: CallServerTests.token("alice"),
            reconnectFor: .seconds(20)
        )
        let alice = await Bot("alice", channel: channel)

        await first.shutdown()
        _ = await firstRunning.result
        #expect(
            await wait(alice, "connected to the second server") { states in
                guard let dropped = states.firstIndex(where: { if case .reconnecting = $0 { true } else { false } })
                else { return false }
                return states[dropped...].contains(.connected(secondURL))
            }
        )

        // A call reaches the client over its new connection, and its answer goes back.
        let bob = try await CallServerTests.bot("bob", secondURL)
        let call = try await bob.client.createSession(opponents: ["alice"], conferenceType: .audio)
        await bob.follow(call)
        try await call.startCall()
        let (incoming, _) = try #require(await alice.incoming())
        try await incoming.rejectCall()
        #expect(await bob.wait(call, "reject") { $0.record != nil })

        // Closing: `signaling(.closed)`, then `disconnected`.
        await alice.client.disconnect()
        #expect(await wait(alice, "closed") { $0.last == .closed(.closedByClient) })
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline,
            !alice.clientEvents.withLock({ $0.contains { if case .disconnected = $0 { true } else { false } } })
        {
            try await Task.sleep(for: .milliseconds(20))
        }
        let tail = alice.clientEvents.withLock { $0.suffix(2).map { "\($0)" } }
        #expect(
            tail.count == 2 && tail[0] == "signaling(closed: closed by the client)" && tail[1] == "disconnected",
            "\(tail)"
        )
        await bob.client.disconnect()
    }
}
