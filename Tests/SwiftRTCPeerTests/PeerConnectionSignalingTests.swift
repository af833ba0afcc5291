import Foundation
import SwiftRTCSDP
import Testing

@testable import SwiftRTCPeer

@Suite(.serialized) struct PeerConnectionSignalingTests {
    static let configuration = LoopbackCall.configuration

    @Test func offerAnswerFollowsTheStateMachine() async throws {
        let a = try PeerConnection(configuration: Self.configuration)
        let b = try PeerConnection(configuration: Self.configuration)
        defer {
            Task {
                await a.close()
                await b.close()
            }
        }
        try await a.addTransceiver(.audio)
        try await a.addTransceiver(.video, direction: .recvonly)
        let states = await a.signalingStateChanges()

        // Not allowed in stable: an answer, local or remote.
        await #expect(throws: PeerConnectionError.self) { _ = try await a.createAnswer() }
        await #expect(throws: PeerConnectionError.self) {
            try await a.setRemoteDescription(SignalingDescription(type: .answer, sdp: "v=0\r\n"))
        }

        let offer = try await a.createOffer()
        let parsedOffer = try SessionDescription(parsing: offer.sdp)
        #expect(parsedOffer.media.map(\.kind) == [.audio, .video])
        #expect(parsedOffer.bundleGroups.first == ["0", "1"])
        #expect(parsedOffer.media[1].direction == .recvonly)
        #expect(parsedOffer.media[0].fingerprints.first?.hashFunction == "sha-256")
        try await a.setLocalDescription(offer)
        #expect(await a.signalingState == .haveLocalOffer)
        #expect(await a.transceivers.map(\.mid) == ["0", "1"])

        try await b.setRemoteDescription(offer)
        #expect(await b.signalingState == .haveRemoteOffer)
        // b had no transceivers: the offer's sections got recvonly ones.
        #expect(await b.transceivers.map(\.kind) == [.audio, .video])
        let answer = try await b.createAnswer()
        let parsedAnswer = try SessionDescription(parsing: answer.sdp)
        #expect(parsedAnswer.media[0].direction == .recvonly)
        #expect(parsedAnswer.media[1].direction == .inactive)
        #expect(parsedAnswer.media[0].setup == .active)
        try await b.setLocalDescription(answer)
        try await a.setRemoteDescription(answer)
        #expect(await a.signalingState == .stable)
        #expect(await b.signalingState == .stable)
        #expect(await a.transceivers.first?.currentDirection == .sendonly)
        #expect(await a.localDescription?.type == .offer)
        #expect(await a.remoteDescription?.type == .answer)
        #expect(await b.localDescription?.type == .answer)

        var seen: [SignalingState] = []
        for await state in states {
            seen.append(state)
            if seen.count == 3 { break }
        }
        #expect(seen == [.stable, .haveLocalOffer, .stable])
    }

    @Test func rollbackRestoresStableAndTransceivers() async throws {
        let a = try PeerConnection(configuration: Self.configuration)
        let b = try PeerConnection(configuration: Self.configuration)
        defer {
            Task {
                await a.close()
                await b.close()
            }
        }
        try await a.addTransceiver(.audio)
        try await a.addTransceiver(.video)
        try await b.addTransceiver(.audio)

        // Local offer rolled back: stable, mids unassigned again.
        let bOffer = try await b.createOffer()
        try await b.setLocalDescription(bOffer)
        try await b.setLocalDescription(SignalingDescription(type: .rollback, sdp: ""))
        #expect(await b.signalingState == .stable)
        #expect(await b.transceivers.map(\.mid) == [nil])
        #expect(await b.localDescription == nil)

        // Remote offer rolled back: the transceiver it added is gone, the mid it gave is taken back.
        let offer = try await a.createOffer()
        try await b.setRemoteDescription(offer)
        #expect(await b.transceivers.count == 2)
        #expect(await b.transceivers.first?.mid == "0")
        try await b.setRemoteDescription(SignalingDescription(type: .rollback, sdp: ""))
        #expect(await b.signalingState == .stable)
        #expect(await b.transceivers.count == 1)
        #expect(await b.transceivers.first?.mid == nil)
        #expect(await b.remoteDescription == nil)

        // Rollback in stable is an error; then the offer applies normally.
        await #expect(throws: PeerConnectionError.self) {
            try await b.setLocalDescription(SignalingDescription(type: .rollback, sdp: ""))
        }
        try await b.setRemoteDescription(offer)
        try await b.setLocalDescription()
        #expect(await b.signalingState == .stable)
        #expect(await b.localDescription?.type == .answer)
    }

    @Test func badSDPSaysWhere() async throws {
        let a = try PeerConnection(configuration: Self.configuration)
        defer { Task { await a.close() } }
        let error = await #expect(throws: PeerConnectionError.self) {
            try await a.setRemoteDescription(SignalingDescription(type: .offer, sdp: "v=0\r\nnonsense\r\n"))
        }
        guard case .invalidDescription(let why)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(why.contains("line 2"), "\(why)")
        #expect(await a.signalingState == .stable)
    }

    /// Relay-only without a TURN server gathers nothing: no host address leaks into the SDP.
    @Test func relayOnlyPolicyOffersNoHostCandidates() async throws {
        let relayOnly = try PeerConnection(
            configuration: .init(
                iceTransportPolicy: .relay,
                gatherAddresses: ["127.0.0.1"],
                transportThreads: LoopbackCall.threads
            )
        )
        let all = try PeerConnection(configuration: Self.configuration)
        for pc in [relayOnly, all] {
            try await pc.addTransceiver(.audio)
            try await pc.setLocalDescription()
            await pc.gatheringComplete()
        }
        let relayOffer = try SessionDescription(parsing: try #require(await relayOnly.localDescription).sdp)
        let allOffer = try SessionDescription(parsing: try #require(await all.localDescription).sdp)
        #expect(relayOffer.media[0].candidates.isEmpty)
        #expect(allOffer.media[0].candidates.contains { $0.type == .host && $0.address == "127.0.0.1" })
        await relayOnly.close()
        await all.close()
    }

    @Test func closedConnectionRefusesEverything() async throws {
        let a = try PeerConnection(configuration: Self.configuration)
        await a.close()
        #expect(await a.signalingState == .closed)
        #expect(await a.connectionState == .closed)
        await #expect(throws: PeerConnectionError.closed) { _ = try await a.createOffer() }
        await #expect(throws: PeerConnectionError.closed) { try await a.addTransceiver(.audio) }
        await a.close()  // idempotent
    }
}
