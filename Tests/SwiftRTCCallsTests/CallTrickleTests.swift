import Foundation
import SocketTestSupport
import SwiftRTCICE
import SwiftRTCPeer
import SwiftRTCSDP
import SwiftRTCSignaling
import Synchronization
import TestScheduling
import Testing
import TransportTestSupport

@testable import SwiftRTCCalls

/// Trickle ICE over the session's signaling (SignalingProtocol.md, "Trickle ICE"): offers and
/// answers go at once, candidates follow them as `candidate` messages, end-of-candidates last;
/// a slow TURN server no longer delays the call.
@Suite(.serialized, .realTime) struct CallTrickleTests {
    /// Loopback host candidates and one TURN server (`port` on loopback, coturn's credentials).
    static func configuration(turnPort port: UInt16, _ coturn: Coturn) throws -> CallConfiguration {
        CallConfiguration(
            iceServers: [
                try IceServer(
                    url: "turn:127.0.0.1:\(port)?transport=udp",
                    username: coturn.username,
                    credential: coturn.password
                )
            ],
            gatherAddresses: ["127.0.0.1"],
            dialingTimeInterval: .seconds(3),
            answerTimeInterval: .seconds(600)
        )
    }

    /// coturn answers through a relay that delays each datagram by 200 ms: the relayed
    /// candidate then always comes after the description. (coturn straight on loopback
    /// allocates in about a millisecond; on a busy machine that sometimes fell between
    /// setting the description and sending it, which then rightly carried the relayed
    /// candidate, and nothing was left to trickle.)
    @Test func candidatesTrickleAfterTheDescriptionsEndOfCandidatesLastAndTheCallConnects() async throws {
        let coturn = try await CallReconnectionTests.startCoturn()
        defer { coturn.stop() }
        let relay = try DelayingUDPRelay(to: coturn.port, delay: .milliseconds(200))
        defer { relay.stop() }
        let configuration = try Self.configuration(turnPort: relay.port, coturn)
        let hub = InProcessSignalingHub()
        let aliceChannel = RecordingChannel(hub.connect(user: "alice"))
        let bobChannel = RecordingChannel(hub.connect(user: "bob"))
        let alice = await Bot("alice", channel: aliceChannel, configuration: configuration)
        let bob = await Bot("bob", channel: bobChannel, configuration: configuration)
        let outgoing = try await alice.client.createSession(opponents: ["bob"], conferenceType: .audio)
        await alice.follow(outgoing)
        try await outgoing.startCall()
        let (incoming, _) = try #require(await bob.incoming())
        // The call rings a while: alice's candidates wait at bob's until he answers.
        try await Task.sleep(for: .milliseconds(300))
        try await incoming.acceptCall()
        #expect(await alice.wait(outgoing, "connected") { $0.contains(connectedTo: "bob") })
        #expect(await bob.wait(incoming, "connected") { $0.contains(connectedTo: "alice") })
        // Gathering ends (the relayed candidate, then the marker) once the TURN allocation is
        // done, a few delayed round trips later.
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            let ended = [aliceChannel, bobChannel].allSatisfy { channel in
                channel.sent.contains { if case .candidate(let c) = $0.body { c.isEndOfCandidates } else { false } }
            }
            if ended { break }
            try await Task.sleep(for: .milliseconds(20))
        }

        for (channel, peer, first) in [(aliceChannel, "bob", "call"), (bobChannel, "alice", "accept")] {
            let sent = channel.sent.filter { $0.session == outgoing.id && $0.to == [peer] }
            let descriptionAt = try #require(sent.firstIndex { $0.type.rawValue == first }, "\(first) sent")
            let sdp: String? =
                switch sent[descriptionAt].body {
                case .call(let call): call.sdp
                case .accept(let accept): accept.sdp
                default: nil
                }
            let description = try #require(sdp)
            // Each section of the bundle (audio, the chat channel's data) repeats the candidates.
            let inDescription = Set(
                description.split(separator: "\r\n").filter { $0.hasPrefix("a=candidate:") }.map {
                    String($0.dropFirst(2))
                }
            )
            let trickled = sent.enumerated().compactMap { index, message -> (Int, IceCandidateInit)? in
                if case .candidate(let candidate) = message.body { (index, candidate) } else { nil }
            }
            // The description goes at once, with the host candidate only; the relayed one follows.
            #expect(inDescription.count == 1 && inDescription.allSatisfy { $0.contains("typ host") }, "\(description)")
            #expect(!description.contains("a=end-of-candidates"))
            #expect(trickled.allSatisfy { $0.0 > descriptionAt }, "nothing trickles before the description")
            #expect(trickled.contains { $0.1.candidate.contains("typ relay") }, "\(trickled.map(\.1.candidate))")
            #expect(Set(trickled.map(\.1.candidate)).isDisjoint(with: inDescription), "no candidate sent twice")
            #expect(trickled.last?.1.isEndOfCandidates == true, "end of candidates last")
            #expect(trickled.filter(\.1.isEndOfCandidates).count == 1)
            let ufrag = CallSession.iceUfrag(in: description)
            #expect(ufrag != nil && trickled.allSatisfy { $0.1.usernameFragment == ufrag })
        }
        await outgoing.hangUp()
        #expect(await bob.wait(incoming, "ended") { $0.record != nil })
    }

    /// A TURN server that answers after 1 s (a relay in front of coturn delays each request):
    /// with trickle the call connects on its host candidates long before gathering completes;
    /// waiting for gathering (the descriptions SwiftRTC sent before) took both sides' gathering.
    @Test func aSlowTurnServerDoesNotDelayTheCall() async throws {
        let coturn = try await CallReconnectionTests.startCoturn()
        defer { coturn.stop() }
        let relay = try DelayingUDPRelay(to: coturn.port, delay: .seconds(1))
        defer { relay.stop() }
        let configuration = try Self.configuration(turnPort: relay.port, coturn)
        let hub = InProcessSignalingHub()
        let alice = await Bot("alice", hub: hub, configuration: configuration)
        let bob = await Bot("bob", hub: hub, configuration: configuration)
        let outgoing = try await alice.client.createSession(opponents: ["bob"], conferenceType: .audio)
        let events = await outgoing.events()
        let connectedAt = Mutex<ContinuousClock.Instant?>(nil)
        let follower = Task {
            for await case .connected in events {
                connectedAt.withLock { $0 = .now }
                return
            }
        }
        defer { follower.cancel() }
        let start = ContinuousClock.now
        try await outgoing.startCall()
        let connection = try #require(await outgoing.peerConnection(for: "bob"))
        let gathering = await connection.iceGatheringStates()
        let gatheredAt = Mutex<ContinuousClock.Instant?>(nil)
        let gatheringFollower = Task {
            for await state in gathering where state == .complete {
                gatheredAt.withLock { $0 = .now }
                return
            }
        }
        defer { gatheringFollower.cancel() }
        let (incoming, _) = try #require(await bob.incoming())
        try await incoming.acceptCall()
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if connectedAt.withLock({ $0 }) != nil, gatheredAt.withLock({ $0 }) != nil { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        let connected = start.duration(to: try #require(connectedAt.withLock { $0 }, "connected"))
        let gathered = start.duration(to: try #require(gatheredAt.withLock { $0 }, "gathering complete"))
        let firstAnswer = start.duration(to: try #require(relay.firstAnswer, "coturn answered through the relay"))
        print(
            "slow TURN (1 s): connected after \(connected), TURN's first answer after \(firstAnswer), "
                + "gathering complete after \(gathered)"
        )
        #expect(connected < firstAnswer + .milliseconds(500), "connected before the TURN server answered, give or take")
        #expect(connected < gathered, "connected before gathering completed")
        await outgoing.hangUp()
        #expect(await bob.wait(incoming, "ended") { $0.record != nil })
    }
}

/// A signaling channel that keeps what it sends.
final class RecordingChannel: SignalingChannel {
    let inner: any SignalingChannel
    private let log = Mutex<[SignalingMessage]>([])

    init(_ inner: any SignalingChannel) { self.inner = inner }

    var sent: [SignalingMessage] { log.withLock { $0 } }
    var userID: String { inner.userID }
    var messages: AsyncStream<SignalingMessage> { inner.messages }

    func send(_ message: SignalingMessage) async throws(SignalingChannelError) {
        log.withLock { $0.append(message) }
        try await inner.send(message)
    }

    func close() async { await inner.close() }
}
