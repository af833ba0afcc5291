import SignalTestSupport
import SwiftRTCCore
import SwiftRTCRTP
import Testing

@testable import SwiftRTCCodecs

@Suite struct OpusEncoderTests {
    /// Encodes `frames` frames of a tone and decodes them with a fresh decoder.
    static func roundTrip(
        frequencies: [Double],
        frameSize: Int,
        frames: Int,
        configuration: OpusEncoderConfiguration
    ) throws -> (encoded: [EncodedFrame], decoded: [Int16]) {
        let encoder = try OpusEncoder(configuration: configuration)
        let decoder = try OpusDecoder(channels: frequencies.count)
        var encoded: [EncodedFrame] = []
        var decoded: [Int16] = []
        for i in 0..<frames {
            let pcm = TestSignals.tone(frequencies, count: frameSize, start: i * frameSize)
            let frame = try encoder.encode(
                AudioFrame(samples: pcm, channels: frequencies.count, timestamp: UInt64(i * frameSize))
            )
            encoded.append(frame)
            let output = try decoder.decode(frame)
            #expect(output.samplesPerChannel == frameSize)
            #expect(output.timestamp == UInt64(i * frameSize))
            decoded += output.samples
        }
        return (encoded, decoded)
    }

    @Test(arguments: OpusEncoder.frameSizes)
    func monoToneKeepsItsFrequencyAtEveryFrameSize(frameSize: Int) throws {
        let frames = 48_000 / frameSize  // one second
        let (encoded, decoded) = try Self.roundTrip(
            frequencies: [1000],
            frameSize: frameSize,
            frames: frames,
            configuration: .init(bitrate: 32_000)
        )
        #expect(encoded.allSatisfy { $0.codec == .opus && $0.isKeyframe })
        #expect(encoded[1].timestamp == UInt32(frameSize))
        let tail = Array(TestSignals.channel(decoded, 0, of: 1)[24_000...])
        let frequency = TestSignals.zeroCrossingFrequency(tail)
        #expect(abs(frequency - 1000) < 5, "decoded frequency \(frequency)")
        #expect(TestSignals.goertzel(tail, frequency: 1000) > 100 * TestSignals.goertzel(tail, frequency: 1500))
        // Amplitude 0.3 of full scale: RMS 0.3 * 32767 / sqrt(2), about 6950.
        #expect(abs(TestSignals.rms(tail) - 6950) < 700)
    }

    @Test func stereoKeepsEachChannelsTone() throws {
        let (_, decoded) = try Self.roundTrip(
            frequencies: [440, 1200],
            frameSize: 960,
            frames: 50,
            configuration: .init(channels: 2, application: .audio, bitrate: 96_000)
        )
        let left = Array(TestSignals.channel(decoded, 0, of: 2)[24_000...])
        let right = Array(TestSignals.channel(decoded, 1, of: 2)[24_000...])
        #expect(abs(TestSignals.zeroCrossingFrequency(left) - 440) < 3)
        #expect(abs(TestSignals.zeroCrossingFrequency(right) - 1200) < 6)
        #expect(TestSignals.goertzel(left, frequency: 440) > 100 * TestSignals.goertzel(left, frequency: 1200))
        #expect(TestSignals.goertzel(right, frequency: 1200) > 100 * TestSignals.goertzel(right, frequency: 440))
    }

    @Test(arguments: [16_000, 32_000, 64_000])
    func constantBitrateIsHonoured(bitrate: Int) throws {
        let (encoded, _) = try Self.roundTrip(
            frequencies: [700],
            frameSize: 960,
            frames: 50,
            configuration: .init(bitrate: bitrate, variableBitrate: false)
        )
        let bits = encoded.reduce(0) { $0 + $1.data.count * 8 }  // 50 frames of 20 ms: one second
        #expect(abs(Double(bits - bitrate)) < Double(bitrate) * 0.05, "\(bits) bit/s for \(bitrate)")
        #expect(Set(encoded.map(\.data.count)).count == 1, "CBR packets all have one size")
    }

    @Test func variableBitrateFollowsTheTarget() throws {
        let low = try Self.roundTrip(
            frequencies: [700],
            frameSize: 960,
            frames: 50,
            configuration: .init(bitrate: 12_000)
        ).encoded
        let high = try Self.roundTrip(
            frequencies: [700],
            frameSize: 960,
            frames: 50,
            configuration: .init(bitrate: 96_000)
        ).encoded
        let lowBits = low.reduce(0) { $0 + $1.data.count * 8 }, highBits = high.reduce(0) { $0 + $1.data.count * 8 }
        #expect(lowBits < 16_000 && highBits > 48_000 && highBits < 110_000, "\(lowBits) and \(highBits) bit/s")
    }

    @Test func discontinuousTransmissionSendsTinyPacketsInSilence() throws {
        let encoder = try OpusEncoder(configuration: .init(discontinuousTransmission: true))
        var sizes: [Int] = []
        for i in 0..<50 {
            let silence = AudioFrame(
                samples: [Int16](repeating: 0, count: 960),
                channels: 1,
                timestamp: UInt64(i * 960)
            )
            sizes.append(try encoder.encode(silence).data.count)
        }
        #expect(sizes.suffix(30).filter { $0 <= 2 }.count >= 25, "\(sizes)")
        let continuous = try OpusEncoder(configuration: .init(discontinuousTransmission: false))
        let silence = AudioFrame(samples: [Int16](repeating: 0, count: 960), channels: 1, timestamp: 0)
        for _ in 0..<20 { _ = try continuous.encode(silence) }
        #expect(try continuous.encode(silence).data.count > 2)
    }

    @Test func settingsChangeMidStream() throws {
        let encoder = try OpusEncoder(configuration: .init(bitrate: 64_000, variableBitrate: false))
        let frame = AudioFrame(samples: TestSignals.tone([500], count: 960), channels: 1, timestamp: 0)
        #expect(try encoder.encode(frame).data.count == 160)
        try encoder.apply(.init(bitrate: 16_000, variableBitrate: false))
        #expect(encoder.currentBitrate == 16_000)
        #expect(try encoder.encode(frame).data.count == 40)
        #expect(throws: OpusError.channelMismatch(expected: 1, got: 2)) { try encoder.apply(.init(channels: 2)) }
    }

    @Test func badSettingsAndFramesAreRejected() throws {
        #expect(throws: OpusError.invalidChannels(3)) { try OpusEncoder(configuration: .init(channels: 3)) }
        #expect(throws: OpusError.invalidBitrate(5_999)) { try OpusEncoder(configuration: .init(bitrate: 5_999)) }
        #expect(throws: OpusError.invalidBitrate(510_001)) { try OpusEncoder(configuration: .init(bitrate: 510_001)) }
        #expect(throws: OpusError.invalidComplexity(11)) { try OpusEncoder(configuration: .init(complexity: 11)) }
        #expect(throws: OpusError.invalidExpectedPacketLoss(101)) {
            try OpusEncoder(configuration: .init(expectedPacketLoss: 101))
        }
        let encoder = try OpusEncoder()
        #expect(throws: OpusError.invalidFrameDuration(samplesPerChannel: 1000)) {
            try encoder.encode(AudioFrame(samples: [Int16](repeating: 0, count: 1000), channels: 1, timestamp: 0))
        }
        #expect(throws: OpusError.channelMismatch(expected: 1, got: 2)) {
            try encoder.encode(AudioFrame(samples: [Int16](repeating: 0, count: 1920), channels: 2, timestamp: 0))
        }
        #expect(OpusError.invalidBitrate(5).description.contains("6000...510000"))
    }
}
