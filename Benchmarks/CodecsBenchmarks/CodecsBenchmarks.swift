// Opus and VP8 per frame, ours beside a bare libopus loop (run: `swift package benchmark
// --target CodecsBenchmarks`). The comparison with vpxenc/vpxdec is Benchmarks/codec-compare.sh.
import Benchmark
import COpus
import Foundation
import SwiftRTCCodecs
import SwiftRTCRTP

/// 20 ms of two tones, mono, as test speech.
func toneFrame(_ index: Int) -> AudioFrame {
    AudioFrame(
        samples: (0..<960).map { i in
            let t = Double(index * 960 + i) / 48_000
            return Int16(8000 * sin(2 * .pi * 440 * t) + 3000 * sin(2 * .pi * 1250 * t))
        },
        channels: 1,
        timestamp: UInt64(index * 960)
    )
}

/// A moving, textured picture.
func pattern(width: Int, height: Int, index: Int) -> VideoFrame {
    var frame = VideoFrame(width: width, height: height, timestamp: UInt64(index) * 3000)
    var seed = UInt32(12345)
    for row in 0..<height {
        for col in 0..<width {
            seed = seed &* 1_103_515_245 &+ 12345
            let moving = ((col + index * 3) / 16 + (row + index) / 16) % 2 == 0 ? 60 : 0
            frame.y[row * width + col] = UInt8(clamping: 50 + (col + row + index * 5) % 120 + moving + Int(seed >> 27))
        }
    }
    return frame
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        maxDuration: .seconds(3)
    )
    let opusConfiguration = OpusEncoderConfiguration(bitrate: 32_000, complexity: 9)

    Benchmark("Opus encode 20 ms mono 32 kbit/s") { benchmark in
        let encoder = try OpusEncoder(configuration: opusConfiguration)
        let frames = (0..<50).map(toneFrame)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { blackHole(try encoder.encode(frames[i % 50])) }
    }

    Benchmark("Opus encode 20 ms mono 32 kbit/s (bare libopus)") { benchmark in
        var status: Int32 = 0
        guard let encoder = opus_encoder_create(48_000, 1, OPUS_APPLICATION_VOIP, &status) else { return }
        defer { opus_encoder_destroy(encoder) }
        _ = COpus_encoder_set(encoder, OPUS_SET_BITRATE_REQUEST, 32_000)
        _ = COpus_encoder_set(encoder, OPUS_SET_COMPLEXITY_REQUEST, 9)
        _ = COpus_encoder_set(encoder, OPUS_SET_VBR_CONSTRAINT_REQUEST, 1)
        _ = COpus_encoder_set(encoder, OPUS_SET_INBAND_FEC_REQUEST, 1)
        let frames = (0..<50).map(toneFrame)
        var packet = [UInt8](repeating: 0, count: 4000)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            frames[i % 50].samples.withUnsafeBufferPointer { pcm in
                packet.withUnsafeMutableBufferPointer { out in
                    guard let input = pcm.baseAddress, let output = out.baseAddress else { return }
                    blackHole(opus_encode(encoder, input, 960, output, 4000))
                }
            }
        }
    }

    Benchmark("Opus decode 20 ms mono 32 kbit/s") { benchmark in
        let encoder = try OpusEncoder(configuration: opusConfiguration)
        let packets = try (0..<50).map { try encoder.encode(toneFrame($0)) }
        let decoder = try OpusDecoder(channels: 1)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { blackHole(try decoder.decode(packets[i % 50])) }
    }

    Benchmark("Opus decode 20 ms mono 32 kbit/s (bare libopus)") { benchmark in
        let encoder = try OpusEncoder(configuration: opusConfiguration)
        let packets = try (0..<50).map { try encoder.encode(toneFrame($0)).data }
        var status: Int32 = 0
        guard let decoder = opus_decoder_create(48_000, 1, &status) else { return }
        defer { opus_decoder_destroy(decoder) }
        var pcm = [Int16](repeating: 0, count: 5760)
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            packets[i % 50].withUnsafeBufferPointer { data in
                pcm.withUnsafeMutableBufferPointer { out in
                    guard let output = out.baseAddress else { return }
                    blackHole(opus_decode(decoder, data.baseAddress, Int32(data.count), output, 5760, 0))
                }
            }
        }
    }

    for (width, height, bitrate) in [(640, 480, 1_000_000), (1280, 720, 2_500_000)] {
        Benchmark(
            "VP8 encode \(width)x\(height) \(bitrate / 1000) kbit/s cpu-used -6",
            configuration: .init(maxDuration: .seconds(5))
        ) { benchmark in
            let encoder = try VP8Encoder(configuration: .init(width: width, height: height, targetBitrate: bitrate))
            let frames = (0..<30).map { pattern(width: width, height: height, index: $0) }
            var index = 0
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                var frame = frames[index % 30]
                frame.timestamp = UInt64(index) * 3000
                blackHole(try encoder.encode(frame))
                index += 1
            }
        }

        Benchmark(
            "VP8 decode \(width)x\(height) \(bitrate / 1000) kbit/s",
            configuration: .init(maxDuration: .seconds(5))
        ) { benchmark in
            let encoder = try VP8Encoder(
                configuration: .init(
                    width: width,
                    height: height,
                    targetBitrate: bitrate,
                    keyframeInterval: 60
                )
            )
            let stream = try (0..<120).compactMap {
                try encoder.encode(pattern(width: width, height: height, index: $0 % 30))
            }
            let decoder = try VP8Decoder()
            var picture = VideoFrame(width: width, height: height)
            // Decoding wraps around at a keyframe (every 60 frames), so any order stays valid.
            benchmark.startMeasurement()
            for i in benchmark.scaledIterations {
                blackHole(try decoder.decode(stream[i % stream.count], into: &picture))
            }
        }
    }
}
