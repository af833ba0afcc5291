import SwiftRTCCodecs
import SwiftRTCMedia
import Synchronization
import Testing

@testable import SwiftRTCPeer

/// Playing into a track replaces what played before: once `play` returns, the old source
/// pushes nothing more. (Before, a cancelled playback could still push the frame it held: on
/// a busy machine one 20 ms frame of the call's tone was encoded after the test had replaced
/// it, and `PCMInOutCallTests` counted 51 frames for 50.)
@Suite struct PlaybackReplacementTests {
    @Test func aReplacedPlaybackPushesNothingAfterPlayReturns() async throws {
        for _ in 0..<20 {
            let track = MediaStreamTrack(kind: .audio)
            let replaced = Atomic<Bool>(false)
            let toneFrames = Atomic<Int>(0), lateToneFrames = Atomic<Int>(0)
            track.setAudioSink { frame in
                guard frame.samples.contains(where: { $0 != 0 }) else { return }  // silence
                toneFrames.add(1, ordering: .relaxed)
                if replaced.load(ordering: .acquiring) { lateToneFrames.add(1, ordering: .relaxed) }
            }
            track.play(ToneGenerator(frequency: 440, amplitude: 0.3), pacing: .asFastAsPossible)
            let deadline = ContinuousClock.now + .seconds(10)
            while toneFrames.load(ordering: .relaxed) < 10, ContinuousClock.now < deadline { await Task.yield() }
            try #require(toneFrames.load(ordering: .relaxed) >= 10, "the tone played")
            track.play(SilenceSource())
            replaced.store(true, ordering: .releasing)
            try await Task.sleep(for: .milliseconds(20))
            track.stop()
            #expect(lateToneFrames.load(ordering: .relaxed) == 0, "tone frames pushed after play returned")
        }
    }
}
