import SwiftRTCCodecs
import SwiftRTCMedia
import Testing

/// ``PCMSource``: any length and any supported rate in, 20 ms 48 kHz frames out, nothing
/// dropped silently.
@Suite struct PCMSourceTests {
    /// Everything a source hands out, as fast as possible.
    static func drain(_ source: PCMSource) async throws -> [AudioFrame] {
        var frames: [AudioFrame] = []
        for try await frame in source.frames(pacing: .asFastAsPossible) { frames.append(frame) }
        return frames
    }

    @Test func oddPiecesAt24kHzComeOutAs20msFramesAt48kHz() async throws {
        let source = try PCMSource(format: PCMFormat(sampleRate: 24_000, channels: 1), bufferMilliseconds: 5_000)
        let reader = Task { try await Self.drain(source) }
        // 1.01 s at 24 kHz in pieces of 1, 99, 17 000 and the rest.
        var written = 0
        for piece in [1, 99, 17_000, 24_240 - 17_100] {
            try await source.write([Int16](repeating: 1000, count: piece))
            written += piece
        }
        await source.finish()
        let frames = try await reader.value
        #expect(written == 24_240)
        #expect(frames.allSatisfy { $0.samplesPerChannel == 960 && $0.channels == 1 })
        // 1.01 s is 50.5 frames: the last half frame padded with silence.
        #expect(frames.count == 51)
        #expect(frames.map(\.timestamp) == (0..<51).map { UInt64($0 * 960) })
        let last = try #require(frames.last)
        let silentEnd = last.samples.suffix(400).allSatisfy { $0 == 0 }
        let toneStart = last.samples.prefix(400).allSatisfy { (sample: Int16) -> Bool in abs(Int(sample) - 1000) < 20 }
        #expect(silentEnd && toneStart)
    }

    @Test func aPartialChannelGroupIsAnErrorNotADrop() async throws {
        let source = try PCMSource(format: PCMFormat(sampleRate: 16_000, channels: 2))
        await #expect(throws: PCMSourceError.partialSampleFrame(count: 3, channels: 2)) {
            try await source.write([1, 2, 3])
        }
        await source.finish()
        await #expect(throws: PCMSourceError.finished) { try await source.write([1, 2]) }
    }

    @Test func unsupportedFormatsAreRefusedWhenMade() {
        #expect(throws: AudioResamplerError.unsupportedFormat(PCMFormat(sampleRate: 4_000, channels: 1))) {
            try PCMSource(format: PCMFormat(sampleRate: 4_000, channels: 1))
        }
        #expect(throws: AudioResamplerError.unsupportedFormat(PCMFormat(sampleRate: 48_000, channels: 6))) {
            try PCMSource(format: PCMFormat(sampleRate: 48_000, channels: 6))
        }
    }

    /// A cancelled source (its track stopped) releases a write waiting for room.
    @Test func cancelReleasesAWaitingWrite() async throws {
        let source = try PCMSource(format: PCMFormat(sampleRate: 48_000, channels: 1), bufferMilliseconds: 20)
        let writer = Task { try await source.write([Int16](repeating: 0, count: 48_000)) }
        try await Task.sleep(for: .milliseconds(50))
        source.cancel()
        await #expect(throws: PCMSourceError.finished) { try await writer.value }
    }
}
