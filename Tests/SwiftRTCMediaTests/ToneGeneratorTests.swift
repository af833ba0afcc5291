import SwiftRTCCodecs
import Testing

@testable import SwiftRTCMedia

@Test func toneHasItsFrequencyAndContinuesAcrossFrames() {
    var tone = ToneGenerator(frequency: 1000, amplitude: 0.5, channels: 2)
    let first = tone.nextFrame()
    let second = tone.nextFrame()
    #expect(first.samplesPerChannel == 960 && first.channels == 2)
    #expect(second.timestamp == 960)
    // 1 kHz at 48 kHz: 48 samples a period, so 20 ms hold 20 periods: 40 sign changes.
    let left = (first.samples + second.samples).enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
    let crossings = zip(left, left.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
    #expect((78...81).contains(crossings))
    #expect(left.max()! > 16000 && left.max()! <= 16384)
}
