import Foundation
import SwiftRTCCodecs
import Synchronization
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

/// `queuedDuration` while a write's frames are handed to the queue and played: it only ever
/// goes down (each frame counted once). It used to count a frame twice for a moment, once
/// in the queue and once as the write's, until the write had noted the handover: a test read
/// 1.02 s of a 1 s write on a busy machine.
@Test func queuedDurationNeverCountsAFrameTwice() async throws {
    let source = try PCMSource(format: PCMFormat(sampleRate: 48_000, channels: 1), bufferMilliseconds: 100)
    let frames = 500
    let writer = Task { try await source.write([Int16](repeating: 1, count: 960 * frames)) }
    while source.queuedDuration == .zero { await Task.yield() }
    // A thread of its own reads as fast as it can while the frames are played.
    let samples = Mutex<[Duration]>([])
    let reading = Atomic<Bool>(true)
    let reader = Thread {
        var seen: [Duration] = []
        while reading.load(ordering: .relaxed) { seen.append(source.queuedDuration) }
        samples.withLock { $0 = seen }
    }
    reader.start()
    var played = 0
    for try await _ in source.frames(pacing: .asFastAsPossible) {
        played += 1
        if played == frames { break }
    }
    try await writer.value
    reading.store(false, ordering: .relaxed)
    while samples.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(1)) }
    let seen = samples.withLock { $0 }
    #expect(seen.first.map { $0 <= .milliseconds(20 * frames) } == true)
    let rises = zip(seen, seen.dropFirst()).filter { $0.1 > $0.0 }
    #expect(
        rises.count == 0,
        "queuedDuration rose \(rises.count) times in \(seen.count) reads, first \(rises.first.map { "\($0.0) to \($0.1)" } ?? "")"
    )
}
