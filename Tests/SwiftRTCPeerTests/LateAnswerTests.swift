import Foundation
import SwiftRTCMedia
import SwiftRTCSDP
import Synchronization
import TestScheduling
import Testing

@testable import SwiftRTCPeer

/// The answerer's checks begin as soon as it has the offer; the offerer can only answer them
/// with checks of its own, and nominate, once the answer has reached it. An answer on a slow
/// signaling path (or a loaded machine) arrives seconds later, and the call must still connect.
@Suite(.realTime) struct LateAnswerTests {
    /// The answer reaches the offerer 7 s after the answerer's checks began: longer than
    /// libnice's 5 s grace before it fails a controlled agent's checks that succeeded
    /// without a nomination. The answerer stays connecting until then, and both connect.
    @Test func anAnswerSevenSecondsLateStillConnects() async throws {
        let configuration = PeerConnection.Configuration(gatherAddresses: ["127.0.0.1"])
        let offerer = try PeerConnection(configuration: configuration)
        let answerer = try PeerConnection(configuration: configuration)
        for pc in [offerer, answerer] {
            let audio = MediaStreamTrack(kind: .audio)
            audio.play(ToneGenerator(frequency: 440, amplitude: 0.3))
            try await pc.addTrack(audio)
        }
        let answererStates = Mutex<[PeerConnectionState]>([])
        let states = await answerer.connectionStates()
        let follower = Task { for await state in states { answererStates.withLock { $0.append(state) } } }
        defer { follower.cancel() }

        try await offerer.setLocalDescription(try await offerer.createOffer())
        await offerer.gatheringComplete()
        let offer = try #require(await offerer.localDescription?.sdp)
        try await answerer.setRemoteDescription(SignalingDescription(type: .offer, sdp: offer))
        try await answerer.setLocalDescription(try await answerer.createAnswer())
        await answerer.gatheringComplete()
        let answer = try #require(await answerer.localDescription?.sdp)

        try await Task.sleep(for: .seconds(7))
        #expect(await answerer.iceConnectionState == .checking)
        try await offerer.setRemoteDescription(SignalingDescription(type: .answer, sdp: answer))
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if await offerer.connectionState == .connected, await answerer.connectionState == .connected { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await offerer.connectionState == .connected)
        #expect(await answerer.connectionState == .connected)
        #expect(!answererStates.withLock { $0 }.contains(.failed), "\(answererStates.withLock { $0 })")
        await offerer.close()
        await answerer.close()
    }
}
