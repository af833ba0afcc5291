import Foundation
import SwiftRTCCodecs
import SwiftRTCMedia
import Synchronization
import Testing

@testable import SwiftRTCPeer

/// PCM in and out over a real call (two PeerConnections on loopback): what a voice agent
/// does. The offerer writes a 1 kHz tone at 16 kHz mono in pieces of odd lengths (7 ms, 333
/// ms, 1 sample...) with `track.write(pcm:format:)`; the answerer reads its remote track as
/// 16 kHz mono PCM with `track.pcm(_:)`. What arrives is at 16 kHz, about as long as what
/// was written, at 1 kHz and near the level sent (Opus is lossy, not that lossy).
@Suite(.serialized, .realTime) struct PCMInOutCallTests {
    static let format = PCMFormat(sampleRate: 16_000, channels: 1)

    @Test func aVoiceAgentWritesAndReadsPCMAt16kHz() async throws {
        let call = try await LoopbackCall.start(video: false)
        defer { Task { await call.close() } }
        try #require(call.connectedAfter != nil)
        let speaker = call.tracks[0]
        let listener = try #require(await call.answerer.transceivers.first { $0.kind == .audio }?.receiver.track)
        let heard = Mutex<[PCMChunk]>([])
        let chunks = try listener.pcm(Self.format)
        let reader = Task { for await chunk in chunks { heard.withLock { $0.append(chunk) } } }
        defer { reader.cancel() }

        // 2 s of tone (amplitude 0.3), in pieces no codec frame matches.
        let tone = (0..<32_000).map { Int16(0.3 * 32767 * sin(2 * Double.pi * 1000 * Double($0) / 16_000)) }
        let pieces = [112, 5_328, 1, 7, 3_000, 16, 1_999, 21_537]
        #expect(pieces.reduce(0, +) == tone.count)
        var offset = 0
        let start = ContinuousClock.now
        for piece in pieces {
            try await speaker.write(pcm: Array(tone[offset..<offset + piece]), format: Self.format)
            offset += piece
        }
        let writing = ContinuousClock.now - start
        try await Task.sleep(for: .milliseconds(1500))  // the queued second plays out and arrives
        let received = heard.withLock { $0 }
        let samples = received.flatMap(\.samples)
        print(
            "PCM in/out: wrote 2 s in \(writing), received \(received.count) chunks, \(samples.count) samples at \(received.first?.format.sampleRate ?? 0) Hz"
        )
        // The writes waited for room: 2 s of audio with a 1 s queue takes about a second to write.
        #expect(writing > .milliseconds(700))
        // 20 ms chunks of 16 kHz mono (the first a little shorter: the resampler's filter fills).
        #expect(
            received.allSatisfy { $0.format == Self.format }
                && received.dropFirst().allSatisfy { $0.samples.count == 320 },
            "chunk sizes \(Set(received.map(\.samples.count)))"
        )
        #expect(
            zip(received, received.dropFirst()).allSatisfy { $1.position == $0.position + UInt64($0.samples.count) },
            "positions follow the samples"
        )
        // The tone: its 2 s are the last of what arrived. Measure the second in its middle,
        // away from both ends: before it the answerer's remote track carried the 440 Hz tone
        // the call started with, and the changeover (Opus and the resampler carrying over
        // the old tone) lies within the first 0.5 s. A window that reached back to the start
        // counted the changeover: 989.7-992 Hz, where the second in the middle gives 999.5 Hz.
        let loud = samples.indices.filter { abs(Int(samples[$0])) > 3000 }
        try #require(loud.count > 16_000 && samples.count >= 24_000, "the tone arrived")
        let tail = Array(samples[samples.count - 24_000..<samples.count - 8_000]).map(Double.init)
        var crossings = 0
        for i in 1..<tail.count where (tail[i] >= 0) != (tail[i - 1] >= 0) { crossings += 1 }
        let frequency = Double(crossings) / 2 / (Double(tail.count) / 16_000)
        let rms = (tail.map { $0 * $0 }.reduce(0, +) / Double(tail.count)).squareRoot()
        print("PCM in/out: \(String(format: "%.1f", frequency)) Hz, RMS \(Int(rms)) (sent 6951)")
        #expect(abs(frequency - 1000) < 10)
        #expect(rms > 6951 * 0.8 && rms < 6951 * 1.2)
    }

    /// Pushed frames of any length are cut into 20 ms frames by the sender, not dropped: 7 ms
    /// frames for a second arrive as a second of audio.
    @Test func audioPushedInOddLengthsIsSentWhole() async throws {
        let call = try await LoopbackCall.start(video: false)
        defer { Task { await call.close() } }
        try #require(call.connectedAfter != nil)
        let speaker = call.tracks[0]
        let source = PushSource<AudioFrame>(capacity: 200, overflow: .backpressure)
        let playback = speaker.play(source)
        let before = await Self.framesEncoded(call.offerer)
        let length = 336  // 7 ms at 48 kHz
        for index in 0..<143 {  // 1.001 s
            let samples = (0..<length).map {
                Int16(0.3 * 32767 * sin(2 * Double.pi * 500 * Double(index * length + $0) / 48_000))
            }
            await source.send(AudioFrame(samples: samples, channels: 1, timestamp: UInt64(index * length)))
        }
        source.finish()
        try await playback.finished()
        try await Task.sleep(for: .milliseconds(200))
        let encoded = await Self.framesEncoded(call.offerer) - before
        #expect(encoded == 50, "1.001 s in 7 ms frames is 50 whole 20 ms frames (the rest waits): \(encoded)")
        let rejected = await call.offerer.stats().first(.mediaSource, kind: "audio")?.number("framesRejected")
        #expect(rejected == 0)
    }

    static func framesEncoded(_ pc: PeerConnection) async -> Int {
        Int(await pc.stats().first(.outboundRTP, kind: "audio")?.number("framesEncoded") ?? -1)
    }
}

/// `StatsReport` as JSON in the shape of W3C `getStats()`, and back.
@Test func statsReportsRoundTripThroughJSON() throws {
    var outbound = StatsReport.Stats(id: "OT-1", type: .outboundRTP)
    outbound["packetsSent"] = .int(512)
    outbound["targetBitrate"] = .double(301_500.5)
    outbound["kind"] = .string("video")
    let report = StatsReport(timestamp: 1234.5, stats: ["OT-1": outbound])
    let json = try JSONEncoder().encode(report)
    let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
    let stats = try #require((object["stats"] as? [String: Any])?["OT-1"] as? [String: Any])
    #expect(
        stats["type"] as? String == "outbound-rtp" && stats["packetsSent"] as? Int == 512
            && stats["kind"] as? String == "video"
    )
    let back = try JSONDecoder().decode(StatsReport.self, from: json)
    #expect(back.timestamp == 1234.5)
    #expect(back.stats["OT-1"]?.values == outbound.values && back.stats["OT-1"]?.type == .outboundRTP)
}
