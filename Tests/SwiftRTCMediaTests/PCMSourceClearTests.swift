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
/// 1.02 s of a 1 s write on a busy machine. The reader keeps only the last value and the
/// rises it saw, and reads at most `maxReads` times (a busy machine makes the playing slow,
/// and the reading must not take a core from the other tests for all that time).
@Test func queuedDurationNeverCountsAFrameTwice() async throws {
    let source = try PCMSource(format: PCMFormat(sampleRate: 48_000, channels: 1), bufferMilliseconds: 100)
    let frames = 500
    let maxReads = 2_000_000
    let writer = Task { try await source.write([Int16](repeating: 1, count: 960 * frames)) }
    while source.queuedDuration == .zero { await Task.yield() }
    // A thread of its own reads as fast as it can while the frames are played.
    let reading = Atomic<Bool>(true)
    let result = Mutex<(reads: Int, rises: Int, first: Duration?, firstRise: String?)?>(nil)
    let reader = Thread {
        var reads = 0, rises = 0
        var firstRise: String?
        let first = source.queuedDuration
        var last = first
        while reading.load(ordering: .relaxed), reads < maxReads {
            let now = source.queuedDuration
            if now > last {
                rises += 1
                if firstRise == nil { firstRise = "\(last) to \(now)" }
            }
            last = now
            reads += 1
        }
        result.withLock { $0 = (reads, rises, first, firstRise) }
    }
    reader.start()
    var played = 0
    for try await _ in source.frames(pacing: .asFastAsPossible) {
        played += 1
        if played == frames { break }
    }
    try await writer.value
    reading.store(false, ordering: .relaxed)
    while result.withLock({ $0 == nil }) { try await Task.sleep(for: .milliseconds(1)) }
    let seen = try #require(result.withLock { $0 })
    #expect(seen.first.map { $0 <= .milliseconds(20 * frames) } == true)
    #expect(
        seen.rises == 0,
        "queuedDuration rose \(seen.rises) times in \(seen.reads) reads, first \(seen.firstRise ?? "")"
    )
}
