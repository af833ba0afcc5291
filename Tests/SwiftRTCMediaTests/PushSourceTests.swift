import SwiftRTCCodecs
import Testing

@testable import SwiftRTCMedia

private func collect(_ source: PushSource<AudioFrame>, pacing: Pacing = .asFastAsPossible) async throws -> [UInt64] {
    var timestamps: [UInt64] = []
    for try await frame in source.frames(pacing: pacing) { timestamps.append(frame.timestamp) }
    return timestamps
}

@Test func pushSourceDropsOldestWhenFull() async throws {
    let source = PushSource<AudioFrame>(capacity: 3, overflow: .dropOldest)
    var tone = ToneGenerator()
    for _ in 0..<5 { #expect(source.push(tone.nextFrame())) }
    source.finish()
    #expect(!source.push(tone.nextFrame()))
    #expect(try await collect(source) == [1920, 2880, 3840])
    #expect(source.droppedFrames == 2)
}

@Test func pushSourceBackpressureLosesNothing() async throws {
    let source = PushSource<AudioFrame>(capacity: 2, overflow: .backpressure)
    let producer = Task {
        var tone = ToneGenerator()
        for _ in 0..<50 { #expect(await source.send(tone.nextFrame())) }
        source.finish()
    }
    #expect(try await collect(source) == (0..<50).map { UInt64($0 * 960) })
    await producer.value
    #expect(source.droppedFrames == 0)

    let full = PushSource<AudioFrame>(capacity: 1, overflow: .backpressure)
    var silence = SilenceSource()
    #expect(full.push(silence.readFrame()!))
    #expect(!full.push(silence.readFrame()!))
    // A producer waiting for room is released when the source finishes.
    let waiting = Task { await full.send(silence.readFrame()!) }
    try await Task.sleep(for: .milliseconds(20))
    full.finish()
    #expect(await waiting.value == false)
}

@Test func pushedBurstPlaysOutInRealTime() async throws {
    // A voice agent pushes a synthesised 100 ms at once; the consumer gets it over 100 ms.
    let source = PushSource<AudioFrame>(capacity: 16, overflow: .backpressure)
    var tone = ToneGenerator()
    for _ in 0..<6 { source.push(tone.nextFrame()) }
    source.finish()
    let clock = ContinuousClock(), start = clock.now
    #expect(try await collect(source, pacing: .realTime).count == 6)
    #expect(clock.now - start >= .milliseconds(100))
}

@Test func pushSourceCarriesVideoFromAnotherTask() async throws {
    let source = PushSource<VideoFrame>(capacity: 4, overflow: .backpressure)
    Task {
        var pattern = TestPatternSource(width: 160, height: 120)
        for _ in 0..<10 { await source.send(pattern.readFrame()!) }
        source.finish()
    }
    var counters: [Int?] = []
    for try await frame in source.frames(pacing: .asFastAsPossible) {
        counters.append(TestPatternSource.readFrameCounter(from: frame))
    }
    #expect(counters == (0..<10).map { $0 })
}
