import Foundation
import SwiftRTCMedia
import SwiftRTCPeer
import SwiftRTCSignaling
import Synchronization
import TestScheduling
import Testing

@testable import SwiftRTCCalls

/// Whole calls between bots in this process: real PeerConnections over loopback, real
/// media, signaling through an ``InProcessSignalingHub``.
@Suite(.serialized, .realTime) struct CallFlowTests {
    @Test func acceptedVideoCallConnectsCarriesMediaAndHangsUpFromTheCallee() async throws {
        let hub = InProcessSignalingHub()
        let alice = await Bot("alice", hub: hub), bob = await Bot("bob", hub: hub)
        let outgoing = try await alice.client.createSession(opponents: ["bob"], conferenceType: .video)
        await alice.follow(outgoing)
        playMedia(outgoing, frequency: 440)
        try await outgoing.startCall(userInfo: ["topic": "hello"])
        #expect(await outgoing.state == .pending)
        #expect(await outgoing.connectionState(for: "bob") == .pending)

        let (incoming, info) = try #require(await bob.incoming())
        #expect(info == ["topic": "hello"])
        #expect(incoming.id == outgoing.id && incoming.initiator == "alice" && incoming.opponents == ["bob"])
        #expect(incoming.conferenceType == .video && incoming.isIncoming)
        playMedia(incoming, frequency: 660)
        let pcm = Mutex<(frames: Int, sumSquares: Double, samples: Int)>((0, 0, 0))
        try await incoming.acceptCall(userInfo: ["mood": "fine"])

        #expect(await alice.wait(outgoing, "connected") { $0.contains(connectedTo: "bob") })
        #expect(await bob.wait(incoming, "connected") { $0.contains(connectedTo: "alice") })
        #expect(
            alice.events(outgoing).contains { if case .accepted("bob", ["mood": "fine"]) = $0 { true } else { false } }
        )
        #expect(await outgoing.state == .connected)
        #expect(await incoming.state == .connected)
        #expect(alice.events(outgoing).states(of: "bob") == [.pending, .connecting, .checking, .connected])

        // Bob's remote audio has a PCM sink; both have a remote video track.
        let remoteAudio = try #require(await incoming.remoteAudioTrack(for: "alice"))
        remoteAudio.setAudioSink { frame in
            let squares = frame.samples.reduce(0.0) { $0 + Double($1) * Double($1) }
            pcm.withLock {
                $0.frames += 1
                $0.sumSquares += squares
                $0.samples += frame.samples.count
            }
        }
        #expect(await outgoing.remoteVideoTrack(for: "bob") != nil)
        #expect(
            await bob.wait(incoming, "stats") { events in
                events.contains {
                    if case .stats("alice", let report, let text) = $0 {
                        report.first(.inboundRTP, kind: "video") != nil && text.contains("VR")
                    } else {
                        false
                    }
                }
            }
        )
        try await Task.sleep(for: .milliseconds(500))
        let heard = pcm.withLock { $0 }
        #expect(heard.frames > 10)
        #expect((heard.sumSquares / Double(max(1, heard.samples))).squareRoot() / 32768 > 0.05)
        #expect(
            await bob.wait(incoming, "alice talking") {
                $0.contains { if case .talking(let users) = $0 { users == ["alice"] } else { false } }
            }
        )
        let text = try #require(await outgoing.statsString(for: "bob"))
        #expect(text.hasPrefix("CN ") && text.contains("opus"))

        await incoming.hangUp(userInfo: ["bye": "now"])
        #expect(await alice.wait(outgoing, "hang up") { $0.record != nil })
        #expect(alice.events(outgoing).hungUp(by: "bob") == ["bye": "now"])
        let aliceRecord = try #require(alice.events(outgoing).record)
        let bobRecord = try #require(await incoming.record)
        for record in [aliceRecord, bobRecord] {
            #expect(record.callId == outgoing.id && record.caller == "alice" && record.callees == ["bob"])
            #expect(record.result == .completed && record.conferenceType == .video)
            #expect(record.duration > 0.5 && record.ended > record.started)
        }
        #expect(await outgoing.state == .closed)
        #expect(await outgoing.connectionState(for: "bob") == .hungUp)
        #expect(await alice.client.activeSessions.isEmpty)
        #expect(await bob.client.activeSessions.isEmpty)
    }

    @Test func callerHangsUpAConnectedCall() async throws {
        let hub = InProcessSignalingHub()
        let alice = await Bot("alice", hub: hub), bob = await Bot("bob", hub: hub)
        let outgoing = try await alice.client.createSession(opponents: ["bob"], conferenceType: .audio)
        await alice.follow(outgoing)
        playMedia(outgoing, frequency: 440)
        try await outgoing.startCall()
        let (incoming, _) = try #require(await bob.incoming())
        #expect(incoming.localVideoTrack == nil)
        try await incoming.acceptCall()
        #expect(await alice.wait(outgoing, "connected") { $0.contains(connectedTo: "bob") })
        await outgoing.hangUp(userInfo: ["reason": "done"])
        #expect(await bob.wait(incoming, "hang up") { $0.record != nil })
        #expect(bob.events(incoming).hungUp(by: "alice") == ["reason": "done"])
        #expect(await incoming.record?.result == .completed)
        #expect(await outgoing.record?.result == .completed)
    }

    @Test func rejectedCallEndsDeclinedWithTheUserInfo() async throws {
        let hub = InProcessSignalingHub()
        let alice = await Bot("alice", hub: hub), bob = await Bot("bob", hub: hub)
        let outgoing = try await alice.client.createSession(opponents: ["bob"], conferenceType: .audio)
        await alice.follow(outgoing)
        try await outgoing.startCall()
        let (incoming, _) = try #require(await bob.incoming())
        try await incoming.rejectCall(userInfo: ["sorry": "busy day"])
        #expect(await alice.wait(outgoing, "reject") { $0.record != nil })
        #expect(
            alice.events(outgoing).contains {
                if case .rejected("bob", ["sorry": "busy day"], false) = $0 { true } else { false }
            }
        )
        #expect(await outgoing.record?.result == .declined)
        #expect(await incoming.record?.result == .declined)
        #expect(await outgoing.connectionState(for: "bob") == .rejected)
        // The hub's call log has it, for both, by role.
        let aliceLog = try await alice.client.callLog(role: .caller)
        #expect(aliceLog.map(\.callId) == [outgoing.id] && aliceLog.first?.result == .declined)
        #expect(try await bob.client.callLog(role: .caller).isEmpty)
        #expect(try await bob.client.callLog(result: .declined).map(\.caller) == ["alice"])
    }

    @Test func unansweredCallIsRedialedThenEndsWithDidNotRespond() async throws {
        let hub = InProcessSignalingHub()
        let alice = await Bot("alice", hub: hub, configuration: shortAnswerConfiguration)
        let bob = hub.connect(user: "bob")  // a user that never answers: count the requests
        let outgoing = try await alice.client.createSession(opponents: ["bob"], conferenceType: .audio)
        await alice.follow(outgoing)
        let started = ContinuousClock.now
        try await outgoing.startCall(userInfo: ["n": "1"])
        var requests: [SignalingMessage] = []
        var hangUp: SignalingMessage?
        for await message in bob.messages {
            if message.type == .call { requests.append(message) }
            if message.type == .hangUp {
                hangUp = message
                break
            }
        }
        // Answer timeout 10 s / dialing 3 s: the request and 3 repeats, then the hang up.
        #expect((3...4).contains(requests.count))
        // Every repeat is the same request; its offer gains the candidates gathered since the
        // first (trickle ICE), and nothing else changes.
        let calls = requests.compactMap { if case .call(let call) = $0.body { call } else { nil } }.map {
            var call = $0
            call.sdp = call.sdp.split(separator: "\r\n")
                .filter { !$0.hasPrefix("a=candidate:") && $0 != "a=end-of-candidates" }.joined(separator: "\r\n")
            return call
        }
        #expect(calls.count == requests.count && Set(calls).count == 1, "\(requests.map(\.body))")
        #expect(calls.first?.userInfo == ["n": "1"] && calls.first?.opponents == ["bob"])
        #expect(hangUp?.body == .hangUp(.init(result: .noAnswer)))
        #expect(ContinuousClock.now - started >= .milliseconds(450))
        #expect(await alice.wait(outgoing, "no answer") { $0.record != nil })
        #expect(alice.events(outgoing).contains { if case .didNotRespond("bob") = $0 { true } else { false } })
        #expect(await outgoing.record?.result == .noAnswer)
        #expect(await outgoing.connectionState(for: "bob") == .noAnswer)
    }

    @Test func callerCancelsBeforeAnswer() async throws {
        let hub = InProcessSignalingHub()
        let alice = await Bot("alice", hub: hub), bob = await Bot("bob", hub: hub)
        let outgoing = try await alice.client.createSession(opponents: ["bob"], conferenceType: .audio)
        try await outgoing.startCall()
        let (incoming, _) = try #require(await bob.incoming())
        await outgoing.hangUp(userInfo: ["oops": "wrong number"])
        #expect(await bob.wait(incoming, "cancel") { $0.record != nil })
        #expect(bob.events(incoming).hungUp(by: "alice") == ["oops": "wrong number"])
        #expect(await incoming.record?.result == .canceled)
        #expect(await outgoing.record?.result == .canceled)
        await #expect(throws: CallError.self) { try await incoming.acceptCall() }
    }

    @Test func secondCallWhileBusyIsRejectedAsBusy() async throws {
        let hub = InProcessSignalingHub()
        let alice = await Bot("alice", hub: hub), bob = await Bot("bob", hub: hub), carol = await Bot("carol", hub: hub)
        let first = try await alice.client.createSession(opponents: ["bob"], conferenceType: .audio)
        await alice.follow(first)
        try await first.startCall()
        let (incoming, _) = try #require(await bob.incoming())
        try await incoming.acceptCall()
        #expect(await alice.wait(first, "connected") { $0.contains(connectedTo: "bob") })

        let second = try await carol.client.createSession(opponents: ["bob"], conferenceType: .audio)
        await carol.follow(second)
        try await second.startCall()
        let ringing = try #require(await bob.incoming(id: second.id))
        #expect(await bob.client.activeSession() === incoming)
        try await ringing.rejectCall()
        #expect(await carol.wait(second, "busy") { $0.record != nil })
        #expect(carol.events(second).contains { if case .rejected("bob", _, true) = $0 { true } else { false } })
        #expect(await second.record?.result == .busy)
        // The first call goes on.
        #expect(await first.state == .connected)
        #expect(await incoming.state == .connected)
        await first.hangUp()
    }

    @Test func customItemsMediaSettingsAndRecordingNoticesReachTheOtherSide() async throws {
        let hub = InProcessSignalingHub()
        let alice = await Bot("alice", hub: hub), bob = await Bot("bob", hub: hub)
        let outgoing = try await alice.client.createSession(opponents: ["bob"], conferenceType: .video)
        await alice.follow(outgoing)
        playMedia(outgoing, frequency: 440)
        try await outgoing.startCall()
        let (incoming, _) = try #require(await bob.incoming())
        playMedia(incoming, frequency: 660)
        try await incoming.acceptCall()
        #expect(await bob.wait(incoming, "connected") { $0.contains(connectedTo: "alice") })
        #expect(await alice.wait(outgoing, "connected") { $0.contains(connectedTo: "bob") })

        await outgoing.updateCustomItems(["topic": "budget", "room": "1"])
        #expect(
            await bob.wait(incoming, "custom items") { events in
                events.contains {
                    if case .customItemsChanged("alice", _, _, ["topic": "budget", "room": "1"]) = $0 {
                        true
                    } else {
                        false
                    }
                }
            }
        )
        // The event said so, and the session's state says the same.
        #expect(await incoming.customItems == ["topic": "budget", "room": "1"])
        await incoming.deleteCustomItems(["room"])
        #expect(
            await alice.wait(outgoing, "deleted item") { events in
                events.contains {
                    if case .customItemsChanged("bob", [:], ["room"], ["topic": "budget"]) = $0 { true } else { false }
                }
            }
        )
        #expect(await incoming.customItems == ["topic": "budget"])
        #expect(await outgoing.customItems == ["topic": "budget"])

        await incoming.setLocalAudioEnabled(false)
        #expect(
            await alice.wait(outgoing, "mute") { events in
                events.contains { if case .remoteMediaSettingsChanged("bob", false, nil) = $0 { true } else { false } }
            }
        )

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("calls-rec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await outgoing.startRecording(.localAudioRemoteAudioVideo, directory: directory)
        #expect(
            await bob.wait(incoming, "recording") { events in
                events.contains {
                    if case .remoteRecordingChanged("alice", true, .localAudioRemoteAudioVideo) = $0 {
                        true
                    } else {
                        false
                    }
                }
            }
        )
        try await Task.sleep(for: .seconds(2))
        let files = await outgoing.stopRecording()
        #expect(
            await bob.wait(incoming, "recording stopped") { events in
                events.contains { if case .remoteRecordingChanged("alice", false, _) = $0 { true } else { false } }
            }
        )
        // Named from this side's clock and the user ids, not from the session id.
        let names = files.map(\.lastPathComponent)
        #expect(names.count == 2 && names[0].hasSuffix("-alice.ogg") && names[1].hasSuffix("-bob.webm"), "\(names)")
        #expect(names.allSatisfy { $0.hasPrefix("call-") && !$0.contains(outgoing.id) }, "\(names)")
        for file in files {
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
            #expect(size > 2000, "\(file.lastPathComponent): \(size) bytes")
        }
        await outgoing.hangUp()
        #expect(await bob.wait(incoming, "end") { $0.record != nil })
        #expect(await incoming.record?.customItems == ["topic": "budget"])
    }

    @Test(arguments: [3, 4])
    func meshConnectsEveryParticipantWithEveryOther(size: Int) async throws {
        let hub = InProcessSignalingHub()
        let names = ["alice", "bob", "carol", "dave"].prefix(size)
        var bots: [String: Bot] = [:]
        for name in names { bots[name] = await Bot(name, hub: hub) }
        let alice = try #require(bots["alice"])
        let outgoing = try await alice.client.createSession(opponents: Array(names.dropFirst()), conferenceType: .audio)
        await alice.follow(outgoing)
        playMedia(outgoing, frequency: 300)
        try await outgoing.startCall()
        var sessions: [String: CallSession] = ["alice": outgoing]
        for (index, name) in names.dropFirst().enumerated() {
            let bot = try #require(bots[name])
            let session = try #require(await bot.incoming(id: outgoing.id))
            playMedia(session, frequency: 400 + 100 * Double(index))
            try await session.acceptCall()
            sessions[name] = session
        }
        for name in names {
            let bot = try #require(bots[name]), session = try #require(sessions[name])
            for other in names where other != name {
                #expect(await bot.wait(session, "\(name) connected to \(other)") { $0.contains(connectedTo: other) })
            }
            #expect(await session.connectionStates.values.allSatisfy { $0 == .connected })
        }
        // Everyone hears everyone else.
        let carol = try #require(sessions["carol"])
        #expect(await carol.remoteAudioTrack(for: "bob") != nil)
        #expect(await carol.remoteAudioTrack(for: "alice") != nil)

        // One opponent leaves: the others stay connected to each other.
        await carol.hangUp()
        for name in names where name != "carol" {
            let bot = try #require(bots[name]), session = try #require(sessions[name])
            #expect(await bot.wait(session, "\(name) sees carol leave") { $0.hungUp(by: "carol") != nil })
            #expect(await session.state == .connected)
        }
        await outgoing.hangUp()
        for name in names.dropFirst() where name != "carol" {
            let bot = try #require(bots[name]), session = try #require(sessions[name])
            #expect(await bot.wait(session, "\(name) sees alice leave") { $0.hungUp(by: "alice") != nil })
            await session.hangUp()
            #expect(await session.record?.result == .completed)
        }
    }

    @Test func brokenOfferIsRefusedWithoutCrashing() async throws {
        let hub = InProcessSignalingHub()
        let bob = await Bot("bob", hub: hub)
        let mallory = hub.connect(user: "mallory")
        try await mallory.send(
            SignalingMessage(
                to: ["bob"],
                session: "evil",
                body: .call(
                    .init(
                        sdp: "v=0\r\nthis is not sdp",
                        conferenceType: .video,
                        initiator: "mallory",
                        opponents: ["bob"]
                    )
                )
            )
        )
        // Messages for unknown sessions and from strangers are ignored.
        try await mallory.send(SignalingMessage(to: ["bob"], session: "other", body: .hangUp(.init())))
        let (incoming, _) = try #require(await bob.incoming())
        await #expect(throws: CallError.self) { try await incoming.acceptCall() }
        #expect(await bob.wait(incoming, "failed") { $0.record != nil })
        #expect(await incoming.record?.result == .failed)
    }

    /// A participant that sends nonsense inside its own session does not bring a bot down: bad
    /// candidates, offers, answers and restarts are refused one by one and the call goes on.
    /// (A real call: in the `.realTime` suite, as every test whose ICE and DTLS have deadlines.)
    @Test func hostileMessagesFromAParticipantAreShrugged() async throws {
        let hub = InProcessSignalingHub()
        let alice = await Bot("alice", hub: hub), bob = await Bot("bob", hub: hub)
        let outgoing = try await alice.client.createSession(opponents: ["bob"], conferenceType: .audio)
        await alice.follow(outgoing)
        playMedia(outgoing, frequency: 440)
        try await outgoing.startCall()
        let (incoming, _) = try #require(await bob.incoming())
        playMedia(incoming, frequency: 660)
        try await incoming.acceptCall()
        #expect(await bob.wait(incoming, "connected") { $0.contains(connectedTo: "alice") })
        // A second channel of alice's user replaces hers at the hub: it speaks for alice now.
        let forger = hub.connect(user: "alice")
        let session = outgoing.id
        for body: SignalingBody in [
            .candidate(.init(candidate: "candidate:garbage", sdpMid: "0")),
            .candidate(.init(candidate: "candidate:1 1 udp 99 999.1.1.1 70000 typ host")),
            .answer(.init(sdp: "v=0\r\nnot really")),
            .offer(.init(sdp: "v=0\r\nnot really", iceRestart: true)),
            .offer(.init(sdp: "")),
            .accept(.init(sdp: "v=0")),
            .mediaSettings(.init()),
        ] {
            try await forger.send(SignalingMessage(to: ["bob"], session: session, body: body))
        }
        try await Task.sleep(for: .milliseconds(300))
        // Bob is alive and still in the call with alice.
        #expect(await incoming.state == .connected)
        #expect(await incoming.connectionState(for: "alice") == .connected)
        await incoming.hangUp()
        #expect(await incoming.record?.result == .completed)
    }
}
