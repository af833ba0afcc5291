import Foundation
import SignalTestSupport
import SwiftRTCMedia
import Testing

/// libswresample behind ``AudioResampler``: tones keep their frequency and level at every rate
/// a bot meets (8/16/24/44.1/48 kHz, mono and stereo both ways), images of the tone stay low,
/// chunking changes nothing, timing is kept (an impulse comes out where it went in), and
/// unsupported formats are refused.
@Suite struct AudioResamplerTests {
    static func format(_ rate: Int, _ channels: Int = 1) -> PCMFormat {
        PCMFormat(sampleRate: rate, channels: channels)
    }

    /// One second of `frequency` at `from`, resampled to `to` in 10 ms chunks.
    static func resampleOneSecond(frequency: Double, from: PCMFormat, to: PCMFormat) throws -> [Int16] {
        let resampler = try AudioResampler(from: from, to: to)
        let input = TestSignals.tone(
            Array(repeating: frequency, count: from.channels),
            rate: from.sampleRate,
            count: from.sampleRate
        )
        var output: [Int16] = []
        let chunk = from.sampleRate / 100 * from.channels
        for start in stride(from: 0, to: input.count, by: chunk) {
            output += resampler.convert(Array(input[start..<min(start + chunk, input.count)]))
        }
        return output + resampler.flush()
    }

    static let cases: [(from: Int, to: Int, frequency: Double)] = [
        (8_000, 48_000, 1_000), (16_000, 48_000, 3_000), (44_100, 48_000, 1_000), (44_100, 48_000, 15_000),
        (32_000, 48_000, 440),
        (48_000, 16_000, 1_000), (48_000, 8_000, 440), (48_000, 24_000, 5_000), (48_000, 44_100, 10_000),
    ]

    @Test(arguments: cases)
    func toneKeepsItsFrequencyAndLevelAndImagesStayLow(from: Int, to: Int, frequency: Double) throws {
        let output = try Self.resampleOneSecond(frequency: frequency, from: Self.format(from), to: Self.format(to))
        #expect(abs(output.count - to) <= 2, "one second in, one second out: \(output.count) samples at \(to) Hz")
        let tail = Array(TestSignals.channel(output, 0, of: 1)[(to / 10)..<(to * 9 / 10)])
        #expect(abs(TestSignals.zeroCrossingFrequency(tail, rate: Double(to)) - frequency) < frequency * 0.001)
        // Amplitude 0.3: RMS 0.3 * 32767 / sqrt(2).
        #expect(abs(TestSignals.rms(tail) - 6951) < 70)
        // Images of the tone around multiples of the input rate, folded into the output band.
        let signal = TestSignals.goertzel(tail, frequency: frequency, rate: Double(to))
        for k in 1...3 {
            for image in [Double(k * from) - frequency, Double(k * from) + frequency] {
                var folded = image.truncatingRemainder(dividingBy: Double(to))
                if folded > Double(to) / 2 { folded = Double(to) - folded }
                guard abs(folded - frequency) > 200, folded > 50 else { continue }
                let ratio = TestSignals.goertzel(tail, frequency: folded, rate: Double(to)) / signal
                #expect(ratio < 1e-5, "image at \(folded) Hz only \(10 * log10(ratio)) dB down")
            }
        }
    }

    @Test func chunkingDoesNotChangeTheOutput() throws {
        let input = TestSignals.tone([523, 1100], rate: 44_100, count: 4_410)
        let whole = try AudioResampler(from: Self.format(44_100, 2), to: Self.format(48_000, 2))
        let reference = whole.convert(input) + whole.flush()
        let chunked = try AudioResampler(from: Self.format(44_100, 2), to: Self.format(48_000, 2))
        var output: [Int16] = []
        var start = 0
        for size in [1, 7, 100, 441, 3, 882, 2976] {
            output += chunked.convert(Array(input[(2 * start)..<(2 * (start + size))]))
            start += size
        }
        output += chunked.flush()
        #expect(start == 4_410)
        #expect(output == reference)
        #expect(abs(reference.count / 2 - 4_800) <= 1)
        #expect(chunked.outputPosition == UInt64(output.count / 2))
    }

    /// A click at 10 ms comes out at 10 ms: no filter delay added to the start.
    @Test(arguments: [(16_000, 48_000), (48_000, 16_000), (44_100, 48_000), (8_000, 24_000)])
    func timingIsKept(from: Int, to: Int) throws {
        var input = [Int16](repeating: 0, count: from / 10)
        input[from / 100] = 20_000
        let resampler = try AudioResampler(from: Self.format(from), to: Self.format(to))
        let output = resampler.convert(input) + resampler.flush()
        let peak = output.indices.max { abs(Int(output[$0])) < abs(Int(output[$1])) } ?? -1
        #expect(abs(peak - to / 100) <= 1, "the click at sample \(to / 100) came out at \(peak)")
    }

    @Test func channelsAreMixedDownAndUp() throws {
        // Stereo to mono: a tone on the left only comes out at a lower level, not lost.
        let left = TestSignals.tone([1_000, 0], rate: 48_000, count: 48_000)
        let down = try AudioResampler(from: Self.format(48_000, 2), to: Self.format(16_000))
        let mono = down.convert(left) + down.flush()
        #expect(abs(mono.count - 16_000) <= 2)
        let level = TestSignals.rms(Array(TestSignals.channel(mono, 0, of: 1)[1_600..<14_400]))
        #expect(level > 6951 * 0.4 && level < 6951 * 0.75, "left-only tone in mono at \(level)")
        // Mono to stereo: both channels carry it.
        let up = try AudioResampler(from: Self.format(16_000), to: Self.format(48_000, 2))
        let stereo = up.convert(TestSignals.tone([700], rate: 16_000, count: 16_000)) + up.flush()
        for channel in 0..<2 {
            let samples = Array(TestSignals.channel(stereo, channel, of: 2)[4_800..<43_200])
            #expect(abs(TestSignals.zeroCrossingFrequency(samples) - 700) < 1)
        }
    }

    @Test func unsupportedFormatsAreRefused() {
        #expect(throws: AudioResamplerError.unsupportedFormat(Self.format(7_999))) {
            try AudioResampler(from: Self.format(7_999), to: Self.format(48_000))
        }
        #expect(throws: AudioResamplerError.unsupportedFormat(Self.format(200_000))) {
            try AudioResampler(from: Self.format(48_000), to: Self.format(200_000))
        }
        #expect(throws: AudioResamplerError.unsupportedFormat(Self.format(16_000, 3))) {
            try AudioResampler(from: Self.format(16_000, 3), to: Self.format(48_000))
        }
    }
}
