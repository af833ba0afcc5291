import Foundation
import SwiftRTCCodecs
import SwiftRTCMedia
import Synchronization
import Testing

@testable import SwiftRTCPeer

/// A voice agent's I/O on a track, without a network: `pcm(_:buffer:)` keeps what a busy
/// consumer has not read for its buffer's time and counts what it drops; `stopSpeaking()`
/// drops the speech `write(pcm:format:)` queued at once, and new speech plays at once after.
@Suite(.serialized, .realTime) struct VoiceAgentIOTests {
    static let format = PCMFormat(sampleRate: 16_000, channels: 1)

    /// 20 ms frames of a 48 kHz mono tone.
    static func frames(_ count: Int) -> [AudioFrame] {
        (0..<count).map { index in
            let samples = (0..<960).map { Int16(8000 * sin(2 * Double.pi * 440 * Double(index * 960 + $0) / 48_000)) }
            return AudioFrame(samples: samples, channels: 1, timestamp: UInt64(index * 960))
        }
    }

    @Test func pcmKeepsTenSecondsForABusyConsumerAndCountsWhatItDrops() async throws {
        let track = MediaStreamTrack(kind: .audio)
        let kept = try track.pcm(Self.format)
        let short = try track.pcm(Self.format, buffer: .seconds(1))
        #expect(kept.capacity == .seconds(10) && short.capacity == .seconds(1))
        // An absurd buffer is taken as an hour (the sample count cannot overflow), a negative one as none.
        #expect(try track.pcm(Self.format, buffer: .seconds(Int64.max)).capacity == PCMStream.maxCapacity)
        #expect(try track.pcm(Self.format, buffer: .seconds(-5)).capacity == .zero)
        // 8 s arrive while nobody reads (the agent speaks, thinks...).
        for frame in Self.frames(400) { track.push(.audio(frame)) }
        #expect(kept.droppedSamples == 0, "\(kept.droppedSamples)")
        let buffered = kept.bufferedSamples
        #expect(buffered > 127_000 && buffered <= 128_000, "8 s at 16 kHz: \(buffered)")
        // The 1 s stream lost the oldest 7 s, and says so.
        #expect(short.bufferedDuration <= .seconds(1) && short.bufferedDuration > .milliseconds(950))
        #expect(short.droppedDuration > .milliseconds(6950) && short.droppedDuration <= .seconds(7))
        #expect(short.droppedSamples + short.bufferedSamples == buffered)
        // Reading gets every sample in order; the track's end finishes the stream.
        track.stop()
        var total = 0
        var position: UInt64 = 0
        for await chunk in kept {
            #expect(chunk.position == position)
            position += UInt64(chunk.samples.count)
            total += chunk.samples.count
        }
        #expect(total == buffered)
        var first: UInt64?
        for await chunk in short { first = first ?? chunk.position }
        #expect(first.map { $0 >= 7 * 16_000 - 320 } == true, "the short stream starts after its gap: \(first ?? 0)")
    }

    @Test func aCancelledReaderEndsItsStream() async throws {
        let track = MediaStreamTrack(kind: .audio)
        let reader = Task { () -> Int in
            var count = 0
            for await _ in try track.pcm(Self.format) { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(track.hasConsumers)
        reader.cancel()
        #expect(try await reader.value == 0)
        // Once the stream is gone the track has no consumer left (a remote one stops decoding).
        try await Task.sleep(for: .milliseconds(20))
        #expect(!track.hasConsumers)
    }

    @Test func stopSpeakingDropsTheQueuedSpeechAndNewSpeechPlaysAtOnce() async throws {
        let track = MediaStreamTrack(kind: .audio)
        let sent = Mutex<[ContinuousClock.Instant]>([])
        let frames = track.frames()
        let counter = Task { for await _ in frames { sent.withLock { $0.append(.now) } } }
        defer { counter.cancel() }
        let speech = (0..<80_000).map { Int16(8000 * sin(2 * Double.pi * 300 * Double($0) / 16_000)) }  // 5 s
        let writer = Task { try await track.write(pcm: speech, format: Self.format) }
        try await Task.sleep(for: .milliseconds(500))
        let queued = track.queuedSpeech
        #expect(queued > .milliseconds(4000) && queued < .milliseconds(4700), "\(queued)")

        let stopped = ContinuousClock.now
        let dropped = track.stopSpeaking()
        #expect(dropped > .milliseconds(3900) && dropped < .milliseconds(4700), "\(dropped)")
        #expect(track.queuedSpeech == .zero)
        // The write that waited for room returns at once, without an error.
        try await writer.value
        let returned = ContinuousClock.now - stopped
        #expect(returned < .milliseconds(200), "\(returned)")
        try await Task.sleep(for: .milliseconds(400))
        let after = sent.withLock { $0.filter { $0 > stopped + .milliseconds(50) }.count }
        #expect(after == 0, "\(after) frames played after stopSpeaking")

        // New speech: at once and at its pace (the dropped 4 s are not waited out).
        let again = ContinuousClock.now
        try await track.write(pcm: Array(speech.prefix(16_000)), format: Self.format)
        try await Task.sleep(for: .milliseconds(1300))
        let played = sent.withLock { $0.filter { $0 > again } }
        #expect(played.count >= 49 && played.count <= 51, "\(played.count) frames of 1 s")
        let start = try #require(played.first), end = try #require(played.last)
        #expect(start - again < .milliseconds(100), "first frame after \(start - again)")
        #expect(end - start > .milliseconds(900), "paced, not a burst: \(end - start)")
    }

    @Test func speechAfterAPausePlaysAtItsPaceNotInABurst() async throws {
        let track = MediaStreamTrack(kind: .audio)
        let sent = Mutex<[ContinuousClock.Instant]>([])
        let frames = track.frames()
        let counter = Task { for await _ in frames { sent.withLock { $0.append(.now) } } }
        defer { counter.cancel() }
        let half = (0..<8_000).map { Int16(8000 * sin(2 * Double.pi * 300 * Double($0) / 16_000)) }
        try await track.write(pcm: half, format: Self.format)
        try await Task.sleep(for: .milliseconds(1500))  // played, then 1 s of silence
        let again = ContinuousClock.now
        try await track.write(pcm: half, format: Self.format)
        try await Task.sleep(for: .milliseconds(800))
        let played = sent.withLock { $0.filter { $0 > again } }
        let spread = (played.last ?? again) - (played.first ?? again)
        #expect(played.count == 25 && spread > .milliseconds(400), "\(played.count) frames over \(spread)")
    }
}
