import SwiftRTCCodecs
import Synchronization
import Testing

@testable import SwiftRTCPeer

/// A track's audio sink is read twice per frame (whether anyone listens, then to call it):
/// over a long call that must cost the same on the last frame as on the first. (Kept as a
/// bare closure behind its lock, each read wrapped it in one more thunk: 32 bytes that
/// stayed, and a call one frame deeper, until the decoding task's stack overflowed.)
@Suite struct MediaStreamTrackSinkTests {
    @inline(never)
    static func stackAddress() -> Int {
        var marker = 0
        return withUnsafeMutablePointer(to: &marker) { Int(bitPattern: $0) }
    }

    @Test func theSinkCostsTheSameOnTheLastFrameAsOnTheFirst() {
        let track = MediaStreamTrack(kind: .audio)
        let depths = Mutex<[Int]>([])
        let frames = Mutex(0)
        track.setAudioSink { _ in
            let count = frames.withLock {
                $0 += 1
                return $0
            }
            if count == 1 || count == 20_000 { depths.withLock { $0.append(Self.stackAddress()) } }
        }
        let frame = AudioFrame(samples: [Int16](repeating: 0, count: 960), channels: 1, timestamp: 0)
        for _ in 0..<20_000 {
            #expect(track.hasConsumers)
            track.push(.audio(frame))
        }
        let recorded = depths.withLock { $0 }
        #expect(frames.withLock { $0 } == 20_000 && recorded.count == 2)
        #expect(abs(recorded[0] - recorded[1]) < 1024, "stack moved \(recorded[0] - recorded[1]) bytes")
    }
}
