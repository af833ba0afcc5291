// Media per frame: voice activity detection and level metering on 20 ms of PCM (both must
// be far below 20 ms of CPU to run on every live stream), test pattern generation and
// counter reading, Ogg page CRC, and WebM muxing per frame.
// Run: `swift package benchmark --target MediaBenchmarks`.
import Benchmark
import Foundation
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCRTP

/// 20 ms frames of a voiced, syllable-modulated signal.
func speechFrames(count: Int) -> [AudioFrame] {
    (0..<count).map { index in
        AudioFrame(
            samples: (0..<960).map { i in
                let t = Double(index * 960 + i) / 48_000
                let voiced = (1...20).reduce(0.0) { $0 + sin(2 * .pi * 120 * Double($1) * t) / Double($1) }
                return Int16(clamping: Int(6000 * voiced * (0.55 + 0.45 * sin(2 * .pi * 4 * t))))
            },
            channels: 1,
            timestamp: UInt64(index * 960)
        )
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        maxDuration: .seconds(2)
    )

    Benchmark("Resample 10 ms 44.1 kHz stereo to 48 kHz (libswresample)") { benchmark in
        let resampler = try AudioResampler(
            from: PCMFormat(sampleRate: 44_100, channels: 2),
            to: PCMFormat(sampleRate: 48_000, channels: 2)
        )
        let input = (0..<882).map { Int16(truncatingIfNeeded: $0 &* 37) }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(resampler.convert(input)) }
    }

    Benchmark("VAD 20 ms mono frame") { benchmark in
        let frames = speechFrames(count: 50)
        var detector = VoiceActivityDetector()
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { blackHole(detector.isSpeech(frames[i % 50])) }
    }

    Benchmark("Audio level (RFC 6464) 20 ms mono frame") { benchmark in
        let frames = speechFrames(count: 50)
        var meter = AudioLevelMeter()
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            meter.analyze(frames[i % 50])
            blackHole(meter.takeAudioLevel())
        }
    }

    for (width, height) in [(640, 480), (1280, 720)] {
        Benchmark("Test pattern frame \(width)x\(height)") { benchmark in
            var pattern = TestPatternSource(width: width, height: height)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { blackHole(pattern.readFrame()) }
        }
        Benchmark("Read frame counter \(width)x\(height)") { benchmark in
            var pattern = TestPatternSource(width: width, height: height)
            let frame = pattern.readFrame()!
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { blackHole(TestPatternSource.readFrameCounter(from: frame)) }
        }
    }

    Benchmark("Ogg page of 50 Opus packets (80 bytes) serialized with CRC") { benchmark in
        let page = OggPage(
            flags: [],
            granulePosition: 48_000,
            serialNumber: 1,
            sequenceNumber: 2,
            segmentTable: [UInt8](repeating: 80, count: 50),
            body: [UInt8](repeating: 0x5A, count: 4000)
        )
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(page.serialized) }
    }

    Benchmark("WebM recorder, per Opus frame (80 bytes)") { benchmark in
        let path = NSTemporaryDirectory() + "swiftrtc-bench-\(getpid()).webm"
        defer { unlink(path) }
        let recorder = try WebMRecorder(
            path: path,
            audio: OpusHead(channels: 1, preSkip: 0),
            video: nil,
            trackStart: .zero
        )
        var data = [UInt8](repeating: 0x33, count: 80)
        data[0] = 0xFC  // CELT 20 ms, one frame
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            try recorder.write(
                EncodedFrame(codec: .opus, data: data, timestamp: UInt32(truncatingIfNeeded: i * 960), isKeyframe: true)
            )
        }
        benchmark.stopMeasurement()
        try recorder.close()
    }
}
