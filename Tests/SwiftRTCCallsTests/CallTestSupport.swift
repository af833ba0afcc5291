import Foundation
import SwiftRTCCodecs
import SwiftRTCMedia
import SwiftRTCPeer
import SwiftRTCSignaling
import Synchronization
import Testing

@testable import SwiftRTCCalls

/// Timers run 20 times faster in these tests: the minimum intervals (dialing 3 s, answer
/// timeout 10 s, disconnect timeout 10 s) last 150 ms, 500 ms and 500 ms.
let testClock = CallClock.accelerated(by: 20)

/// Loopback calls; stats every (accelerated) 2 s. Calls that are answered get 600 s (30 s at
/// test speed) to answer: a loaded machine takes its time to set up a connection.
let testConfiguration = CallConfiguration(
    gatherAddresses: ["127.0.0.1"],
    dialingTimeInterval: .seconds(3),
    answerTimeInterval: .seconds(600),
    statsInterval: .seconds(2)
)

/// The minimum answer timeout (500 ms at test speed), for calls nobody answers.
let shortAnswerConfiguration = CallConfiguration(
    gatherAddresses: ["127.0.0.1"],
    dialingTimeInterval: .seconds(3),
    answerTimeInterval: .seconds(10)
)

/// A bot: a call client on a hub channel, with every event it saw.
final class Bot: Sendable {
    let client: CallClient
    let name: String
    let clientEvents = Mutex<[CallClientEvent]>([])
    let sessionEvents = Mutex<[String: [CallSessionEvent]]>([:])
    private let follower = Mutex<[Task<Void, Never>]>([])

    convenience init(
        _ name: String,
        hub: InProcessSignalingHub,
        configuration: CallConfiguration = testConfiguration,
        clock: CallClock = testClock
    ) async {
        await self.init(name, channel: hub.connect(user: name), configuration: configuration, clock: clock)
    }

    init(
        _ name: String,
        channel: any SignalingChannel,
        configuration: CallConfiguration = testConfiguration,
        clock: CallClock = testClock
    ) async {
        self.name = name
        client = CallClient(channel: channel, configuration: configuration, clock: clock)
        let events = await client.events()
        let task = Task { [weak self] in
            for await event in events {
                self?.clientEvents.withLock { $0.append(event) }
                if case .incomingSession(let session, _) = event { await self?.follow(session) }
            }
        }
        follower.withLock { $0.append(task) }
    }

    /// Records the session's events (call before starting or accepting it).
    func follow(_ session: CallSession) async {
        let events = await session.events()
        let id = session.id
        sessionEvents.withLock { $0[id] = $0[id] ?? [] }
        let task = Task { [weak self] in
            for await event in events { self?.sessionEvents.withLock { $0[id, default: []].append(event) } }
        }
        follower.withLock { $0.append(task) }
    }

    func events(_ session: CallSession) -> [CallSessionEvent] { sessionEvents.withLock { $0[session.id] ?? [] } }

    /// Waits (polling, never blocking) until `condition` holds over the session's events.
    func wait(
        _ session: CallSession,
        timeout: Duration = .seconds(30),
        _ what: String,
        until condition: ([CallSessionEvent]) -> Bool
    ) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(events(session)) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        let ok = condition(events(session))
        if !ok { Issue.record("\(name): timed out waiting for \(what); events: \(events(session).map(describe))") }
        return ok
    }

    /// The next incoming session.
    func incoming(timeout: Duration = .seconds(20)) async -> (CallSession, [String: String])? {
        let deadline = ContinuousClock.now + timeout
        var seen = 0
        while ContinuousClock.now < deadline {
            let events = clientEvents.withLock { $0 }
            for event in events.dropFirst(seen) {
                if case .incomingSession(let session, let info) = event { return (session, info) }
            }
            seen = events.count
            try? await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("\(name): no incoming session")
        return nil
    }

    /// The incoming session with `id`.
    func incoming(id: String, timeout: Duration = .seconds(20)) async -> CallSession? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            for event in clientEvents.withLock({ $0 }) {
                if case .incomingSession(let session, _) = event, session.id == id { return session }
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("\(name): no incoming session \(id)")
        return nil
    }

    deinit { follower.withLock { for task in $0 { task.cancel() } } }
}

/// Plays a tone (and a small test pattern in video calls) into the session's local tracks.
func playMedia(_ session: CallSession, frequency: Double) {
    session.localAudioTrack.play(ToneGenerator(frequency: frequency))
    session.localVideoTrack?.play(TestPatternSource(width: 160, height: 120, framesPerSecond: 15))
}

func describe(_ event: CallSessionEvent) -> String {
    switch event {
    case .stateChanged(let state): "state \(state.rawValue)"
    case let .connectionStateChanged(user, state): "\(user) \(state.rawValue)"
    case .stats(let user, _, _): "stats \(user)"
    case .ended(let record): "ended \(record.result.rawValue)"
    default: "\(event)".prefix(80).description
    }
}

extension Array where Element == CallSessionEvent {
    func contains(connectedTo user: String) -> Bool {
        contains { if case .connected(user) = $0 { true } else { false } }
    }
    var record: CallRecord? {
        for event in self { if case .ended(let record) = event { return record } }
        return nil
    }
    func hungUp(by user: String) -> [String: String]? {
        for event in self { if case .hungUp(user, let info) = event { return info } }
        return nil
    }
    func states(of user: String) -> [CallConnectionState] {
        compactMap { if case .connectionStateChanged(user, let state) = $0 { state } else { nil } }
    }
}

/// Alice calls bob through a new in-process hub: her outgoing session (followed) and his
/// incoming one, not yet accepted. `before` runs on her session before she dials.
func aliceCallsBob(
    _ type: ConferenceType,
    before: (CallSession) async -> Void = { _ in }
) async throws
    -> (alice: Bot, bob: Bot, outgoing: CallSession, incoming: CallSession)
{
    let hub = InProcessSignalingHub()
    let alice = await Bot("alice", hub: hub), bob = await Bot("bob", hub: hub)
    let outgoing = try await alice.client.createSession(opponents: ["bob"], conferenceType: type)
    await alice.follow(outgoing)
    await before(outgoing)
    try await outgoing.startCall()
    let (incoming, _) = try #require(await bob.incoming())
    return (alice, bob, outgoing, incoming)
}
