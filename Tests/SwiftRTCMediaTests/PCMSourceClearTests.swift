import Foundation
import SwiftRTCCodecs
import Testing

@testable import SwiftRTCMedia

/// `PCMSource.clear()` and `PushSource.removeAll()`: queued audio goes at once, writes waiting
/// for room return, and the source goes on.
@Test func clearDropsQueuedFramesAndReleasesAWaitingWrite() async throws {
    let source = try PCMSource(format: PCMFormat(sampleRate: 48_000, channels: 1), bufferMilliseconds: 100)
    // 1 s: 5 frames fit, the write waits with the other 45.
    let writer = Task { try await source.write([Int16](repeating: 100, count: 48_000)) }
    try await Task.sleep(for: .milliseconds(100))
    #expect(source.queuedDuration == .seconds(1))
    #expect(source.clear() == .seconds(1))
    try await writer.value
    #expect(source.queuedDuration == .zero)
    // Still open: the next write is queued and played.
    try await source.write([Int16](repeating: 7, count: 960 * 2 + 10))
    #expect(source.queuedDuration == .milliseconds(40))
    await source.finish()
    var frames: [AudioFrame] = []
    for try await frame in source.frames(pacing: .asFastAsPossible) { frames.append(frame) }
    // Two whole frames of the new write and its padded tail; nothing of the first.
    #expect(frames.count == 3 && frames.allSatisfy { !$0.samples.contains(100) })
}

@Test func removeAllEmptiesAPushSource() async throws {
    let source = PushSource<AudioFrame>(capacity: 2, overflow: .backpressure)
    let frame = AudioFrame(samples: [Int16](repeating: 0, count: 960), channels: 1, timestamp: 0)
    source.push(frame)
    source.push(frame)
    let waiting = Task { await source.send(frame) }
    try await Task.sleep(for: .milliseconds(50))
    #expect(source.bufferedFrames == 2)
    #expect(source.removeAll() == 3)
    #expect(await waiting.value == true)
    #expect(source.bufferedFrames == 0)
    #expect(source.push(frame))
}
