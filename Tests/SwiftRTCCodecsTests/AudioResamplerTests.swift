import Foundation
import Testing
@testable import SwiftRTCCodecs

@Suite struct AudioResamplerTests {
    /// One second of `frequency` at `rate`, resampled in 10 ms chunks.
    static func resampleOneSecond(frequency: Double, rate: Int, channels: Int = 1) throws -> AudioFrame {
        var resampler = try AudioResampler(inputRate: rate, channels: channels)
        let input = TestSignals.tone(Array(repeating: frequency, count: channels), rate: rate, count: rate)
        var output: [Int16] = []
        let chunk = rate / 100 * channels
        for start in stride(from: 0, to: input.count, by: chunk) {
            output += resampler.resample(Array(input[start..<min(start + chunk, input.count)])).samples
        }
        return AudioFrame(samples: output, channels: channels, timestamp: 0)
    }

    @Test(arguments: [(8_000, 1_000.0), (16_000, 3_000.0), (44_100, 1_000.0), (44_100, 15_000.0), (32_000, 440.0)])
    func toneKeepsItsFrequencyAndImagesStayLow(rate: Int, frequency: Double) throws {
        let output = try Self.resampleOneSecond(frequency: frequency, rate: rate)
        #expect(output.samplesPerChannel == 48_000)
        let tail = Array(TestSignals.channel(output.samples, 0, of: 1)[4_800...])
        #expect(abs(TestSignals.zeroCrossingFrequency(tail) - frequency) < frequency * 0.001)
        // Amplitude 0.3: RMS 0.3 * 32767 / sqrt(2).
        #expect(abs(TestSignals.rms(tail) - 6951) < 70)
        // Images of the tone around multiples of the input rate, folded into 0...24 kHz.
        let signal = TestSignals.goertzel(tail, frequency: frequency)
        for k in 1...3 {
            for image in [Double(k * rate) - frequency, Double(k * rate) + frequency] {
                var folded = image.truncatingRemainder(dividingBy: 48_000)
                if folded > 24_000 { folded = 48_000 - folded }
                guard abs(folded - frequency) > 200 else { continue }
                let ratio = TestSignals.goertzel(tail, frequency: folded) / signal
                #expect(ratio < 1e-6, "image at \(folded) Hz only \(10 * log10(ratio)) dB down")
            }
        }
    }

    @Test func chunkingDoesNotChangeTheOutput() throws {
        let input = TestSignals.tone([523, 1100], rate: 44_100, count: 4_410)
        var whole = try AudioResampler(inputRate: 44_100, channels: 2)
        let reference = whole.resample(input)
        var chunked = try AudioResampler(inputRate: 44_100, channels: 2)
        var output: [Int16] = []
        var start = 0
        for size in [1, 7, 100, 441, 3, 882, 2976] {
            let frame = chunked.resample(Array(input[(2 * start)..<(2 * (start + size))]))
            #expect(frame.timestamp == UInt64(output.count / 2), "timestamps count the 48 kHz output")
            output += frame.samples
            start += size
        }
        #expect(start == 4_410)
        #expect(output == reference.samples)
        #expect(reference.samplesPerChannel == 4_800)
    }

    @Test func stereoChannelsStaySeparate() throws {
        var resampler = try AudioResampler(inputRate: 16_000, channels: 2)
        let output = resampler.resample(TestSignals.tone([500, 2_000], rate: 16_000, count: 16_000))
        let left = Array(TestSignals.channel(output.samples, 0, of: 2)[4_800...])
        let right = Array(TestSignals.channel(output.samples, 1, of: 2)[4_800...])
        #expect(abs(TestSignals.zeroCrossingFrequency(left) - 500) < 1)
        #expect(abs(TestSignals.zeroCrossingFrequency(right) - 2_000) < 2)
        #expect(TestSignals.goertzel(left, frequency: 2_000) < 1e-6 * TestSignals.goertzel(left, frequency: 500))
    }

    @Test func unsupportedRatesAreRejected() {
        #expect(throws: AudioResamplerError.unsupportedInputRate(7_999)) { try AudioResampler(inputRate: 7_999, channels: 1) }
        #expect(throws: AudioResamplerError.unsupportedInputRate(200_000)) { try AudioResampler(inputRate: 200_000, channels: 1) }
        // 48000/11027 does not reduce: 48000 phases.
        #expect(throws: AudioResamplerError.unsupportedInputRate(11_027)) { try AudioResampler(inputRate: 11_027, channels: 1) }
        #expect(throws: AudioResamplerError.invalidChannels(3)) { try AudioResampler(inputRate: 8_000, channels: 3) }
    }
}
