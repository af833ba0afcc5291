import SignalTestSupport
import SwiftRTCCore
import SwiftRTCRTP
import TestScheduling
import Testing

@testable import SwiftRTCCodecs

/// Serialized: each test encodes hundreds of frames on a cooperative-pool thread, and the
/// suite must not take both of them at once from the rest of the package's tests.
@Suite(.serialized, .realTime) struct VP8EncoderTests {
    @Test func movingPatternSurvivesTheRoundTrip() throws {
        let encoder = try VP8Encoder(configuration: .init(width: 640, height: 480, targetBitrate: 1_000_000))
        let decoder = try VP8Decoder()
        var psnrs: [Double] = []
        for i in 0..<30 {
            let input = TestSignals.pattern(width: 640, height: 480, index: i)
            guard let encoded = try encoder.encode(input) else {
                Issue.record("frame \(i) produced no output")
                continue
            }
            #expect(encoded.codec == .vp8 && encoded.timestamp == UInt32(i * 3000))
            #expect(encoded.isKeyframe == (i == 0))
            let output = try #require(try decoder.decode(encoded))
            #expect(output.width == 640 && output.height == 480 && output.timestamp == UInt64(i * 3000))
            psnrs.append(TestSignals.psnr(input, output))
        }
        #expect(psnrs.allSatisfy { $0 > 30 }, "PSNR \(psnrs)")
        #expect(encoder.framesEncoded == 30 && encoder.keyframesEncoded == 1 && decoder.framesDecoded == 30)
    }

    /// Three temporal layers: frames go 0, 2, 1, 2 from each keyframe (which is layer 0), with
    /// Y on those that refer to the base layer alone; a receiver of the base layer alone, or of
    /// layers 0 and 1, decodes every frame it gets, as well as one that gets them all.
    @Test func temporalLayersDecodeOnTheirOwn() throws {
        let encoder = try VP8Encoder(
            configuration: .init(width: 320, height: 240, targetBitrate: 600_000, temporalLayers: 3)
        )
        var frames: [EncodedFrame] = []
        for i in 0..<24 {
            if i == 13 { encoder.requestKeyframe() }
            frames.append(try #require(try encoder.encode(TestSignals.pattern(width: 320, height: 240, index: i))))
        }
        let layers = frames.map { $0.temporalLayer?.id }
        let expected: [UInt8] = [0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1, 2, 0, 0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1]
        #expect(layers == expected.map { $0 }, "\(layers)")
        #expect(
            frames.map { $0.temporalLayer?.sync }
                == expected.enumerated().map { index, layer in
                    layer != 2 || [1, 5, 9, 14, 18, 22].contains(index)
                }
        )
        #expect(frames.enumerated().allSatisfy { $1.isKeyframe == ($0 == 0 || $0 == 13) })
        for highest: UInt8 in [0, 1, 2] {
            let decoder = try VP8Decoder()
            var psnrs: [Double] = []
            for (i, frame) in frames.enumerated() where (frame.temporalLayer?.id ?? 0) <= highest {
                let output = try #require(
                    try decoder.decode(frame),
                    "frame \(i) of layer \(frame.temporalLayer?.id ?? 0)"
                )
                psnrs.append(TestSignals.psnr(TestSignals.pattern(width: 320, height: 240, index: i), output))
            }
            #expect(psnrs.count == frames.count { ($0.temporalLayer?.id ?? 0) <= highest })
            #expect(psnrs.allSatisfy { $0 > 28 }, "layers up to \(highest): PSNR \(psnrs)")
        }
        #expect(throws: VP8Error.invalidTemporalLayers(2)) {
            try VP8Encoder(configuration: .init(temporalLayers: 2))
        }
    }

    @Test func threadsAndSpeedChangeMidStream() throws {
        let encoder = try VP8Encoder(configuration: .init(width: 640, height: 480, targetBitrate: 1_000_000))
        let decoder = try VP8Decoder(threads: 2)
        for (i, (threads, speed)) in [(1, -6), (2, -6), (2, -12), (1, -4)].enumerated() {
            var configuration = encoder.configuration
            configuration.threads = threads
            configuration.speed = speed
            try encoder.apply(configuration)
            for step in 0..<3 {
                let input = TestSignals.pattern(width: 640, height: 480, index: i * 3 + step)
                let encoded = try #require(try encoder.encode(input))
                let output = try #require(try decoder.decode(encoded))
                #expect(TestSignals.psnr(input, output) > 28, "threads \(threads), speed \(speed)")
            }
        }
        #expect(decoder.framesDecoded == 12 && decoder.corruptFrames == 0)
    }

    @Test func keyframeOnDemandComesOnTheNextFrame() throws {
        let encoder = try VP8Encoder(configuration: .init(width: 320, height: 240, targetBitrate: 500_000))
        var keyframes: [Bool] = []
        for i in 0..<12 {
            if i == 6 { encoder.requestKeyframe() }
            let frame = try #require(try encoder.encode(TestSignals.pattern(width: 320, height: 240, index: i)))
            keyframes.append(frame.isKeyframe)
            #expect(frame.isKeyframe == VP8Decoder.isKeyframe(frame.data))
        }
        #expect(keyframes == [true, false, false, false, false, false, true, false, false, false, false, false])
    }

    @Test func periodicKeyframesFollowTheInterval() throws {
        let encoder = try VP8Encoder(configuration: .init(width: 320, height: 240, keyframeInterval: 10))
        var keyIndices: [Int] = []
        for i in 0..<35
        where try encoder.encode(TestSignals.pattern(width: 320, height: 240, index: i))?.isKeyframe == true {
            keyIndices.append(i)
        }
        #expect(keyIndices.first == 0 && keyIndices.count >= 4, "keyframes at \(keyIndices)")
        #expect(zip(keyIndices, keyIndices.dropFirst()).allSatisfy { $1 - $0 <= 10 }, "keyframes at \(keyIndices)")
    }

    /// Bytes of the last `measured` of `frames` frames encoded at `bitrate`, continuing `encoder`.
    static func bytes(_ encoder: VP8Encoder, from start: Int, frames: Int, measured: Int) throws -> Int {
        var total = 0
        for i in start..<(start + frames) {
            let size = try encoder.encode(TestSignals.pattern(width: 320, height: 240, index: i))?.data.count ?? 0
            if i >= start + frames - measured { total += size }
        }
        return total
    }

    @Test func bitrateChangeMidStreamTakesEffect() throws {
        let encoder = try VP8Encoder(configuration: .init(width: 320, height: 240, targetBitrate: 150_000))
        let low = try Self.bytes(encoder, from: 0, frames: 60, measured: 30) * 8  // bits per second at 30 fps
        var configuration = encoder.configuration
        configuration.targetBitrate = 800_000
        try encoder.apply(configuration)
        let high = try Self.bytes(encoder, from: 60, frames: 60, measured: 30) * 8
        #expect(low > 75_000 && low < 250_000, "\(low) bit/s at 150 kbit/s")
        #expect(high > 400_000 && high < 1_100_000, "\(high) bit/s at 800 kbit/s")
        #expect(encoder.keyframesEncoded == 1, "a bitrate change needs no keyframe")
    }

    @Test func frameRateChangeMidStreamKeepsTheBitrate() throws {
        let encoder = try VP8Encoder(
            configuration: .init(width: 320, height: 240, frameRate: 30, targetBitrate: 300_000)
        )
        var perFrame30 = 0, perFrame15 = 0
        for i in 0..<60 {
            let size =
                try encoder.encode(TestSignals.pattern(width: 320, height: 240, index: i, timestamp: UInt64(i) * 3000))?
                .data.count ?? 0
            if i >= 30 { perFrame30 += size }
        }
        var configuration = encoder.configuration
        configuration.frameRate = 15
        try encoder.apply(configuration)
        for i in 60..<120 {
            let timestamp = 60 * 3000 + UInt64(i - 60) * 6000
            let size =
                try encoder.encode(TestSignals.pattern(width: 320, height: 240, index: i, timestamp: timestamp))?.data
                .count ?? 0
            if i >= 90 { perFrame15 += size }
        }
        // Same bitrate over half the frames: each frame gets about twice the bytes.
        let ratio = Double(perFrame15) / Double(perFrame30)
        #expect(ratio > 1.5 && ratio < 2.6, "bytes per frame at 15 fps / at 30 fps = \(ratio)")
        #expect(abs(Double(perFrame15 * 8) / 2 - 300_000) < 90_000, "\(perFrame15 * 8 / 2) bit/s at 15 fps")
    }

    @Test func averageQPIsLowerAtHigherBitrate() throws {
        let low = try VP8Encoder(configuration: .init(width: 320, height: 240, targetBitrate: 100_000))
        let high = try VP8Encoder(configuration: .init(width: 320, height: 240, targetBitrate: 2_000_000))
        #expect(low.averageQP == nil)
        _ = try Self.bytes(low, from: 0, frames: 40, measured: 0)
        _ = try Self.bytes(high, from: 0, frames: 40, measured: 0)
        let lowQP = try #require(low.averageQP), highQP = try #require(high.averageQP)
        #expect((0...127).contains(lowQP) && (0...127).contains(highQP))
        #expect(highQP + 10 < lowQP, "QP \(highQP) at 2 Mbit/s, \(lowQP) at 100 kbit/s")
    }

    @Test func resolutionChangesMidStream() throws {
        let encoder = try VP8Encoder(configuration: .init(width: 640, height: 480, targetBitrate: 800_000))
        let decoder = try VP8Decoder()
        var index = 0
        for (width, height) in [(640, 480), (320, 240), (1280, 720)] {
            var configuration = encoder.configuration
            configuration.width = width
            configuration.height = height
            try encoder.apply(configuration)
            for step in 0..<3 {
                let input = TestSignals.pattern(width: width, height: height, index: index)
                index += 1
                let frame = try #require(try encoder.encode(input))
                if step == 0 { #expect(frame.isKeyframe, "a new size starts with a keyframe") }
                let output = try #require(try decoder.decode(frame))
                #expect(output.width == width && output.height == height)
                #expect(decoder.width == width && decoder.height == height)
                #expect(TestSignals.psnr(input, output) > 25)
            }
        }
    }

    @Test func framesOfAnotherSizeAreScaled() throws {
        let encoder = try VP8Encoder(configuration: .init(width: 320, height: 240, targetBitrate: 600_000))
        let decoder = try VP8Decoder()
        for i in 0..<5 {
            let input = TestSignals.pattern(width: 640, height: 480, index: i)
            let encoded = try #require(try encoder.encode(input))
            let output = try #require(try decoder.decode(encoded))
            #expect(output.width == 320 && output.height == 240)
            #expect(TestSignals.psnr(input.scaled(width: 320, height: 240), output) > 28)
        }
    }

    static func pad(_ plane: [UInt8], width: Int, rows: Int, to stride: Int) -> [UInt8] {
        var out = [UInt8](repeating: 255, count: stride * rows)
        for row in 0..<rows {
            for col in 0..<width { out[row * stride + col] = plane[row * width + col] }
        }
        return out
    }

    @Test func paddedStridesAreRead() throws {
        let encoder = try VP8Encoder(configuration: .init(width: 64, height: 48))
        let decoder = try VP8Decoder()
        let tight = TestSignals.pattern(width: 64, height: 48, index: 3)
        var padded = tight
        padded.yStride = 80
        padded.uvStride = 40
        padded.y = Self.pad(tight.y, width: 64, rows: 48, to: 80)
        padded.u = Self.pad(tight.u, width: 32, rows: 24, to: 40)
        padded.v = Self.pad(tight.v, width: 32, rows: 24, to: 40)
        let encoded = try #require(try encoder.encode(padded))
        let output = try #require(try decoder.decode(encoded))
        #expect(TestSignals.psnr(tight, output) > 30)
    }

    @Test func badSettingsAreRejected() throws {
        #expect(throws: VP8Error.invalidSize(width: 0, height: 480)) { try VP8Encoder(configuration: .init(width: 0)) }
        #expect(throws: VP8Error.invalidSize(width: 640, height: 20_000)) {
            try VP8Encoder(configuration: .init(height: 20_000))
        }
        #expect(throws: VP8Error.invalidBitrate(1_000)) { try VP8Encoder(configuration: .init(targetBitrate: 1_000)) }
        #expect(throws: VP8Error.invalidFrameRate(0)) { try VP8Encoder(configuration: .init(frameRate: 0)) }
        #expect(throws: VP8Error.invalidThreads(0)) { try VP8Encoder(configuration: .init(threads: 0)) }
        #expect(throws: VP8Error.invalidSpeed(17)) { try VP8Encoder(configuration: .init(speed: 17)) }
        #expect(throws: VP8Error.invalidKeyframeInterval(0)) {
            try VP8Encoder(configuration: .init(keyframeInterval: 0))
        }
        let encoder = try VP8Encoder(configuration: .init(width: 64, height: 48))
        #expect(throws: VP8Error.invalidBitrate(-5)) {
            try encoder.apply(.init(width: 64, height: 48, targetBitrate: -5))
        }
        var broken = VideoFrame(width: 64, height: 48)
        broken.y.removeLast(10)
        #expect(throws: VP8Error.inconsistentFrame(width: 64, height: 48)) { try encoder.encode(broken) }
    }
}
