import SwiftRTCCodecs
import Testing

@testable import SwiftRTCMedia

@Test(arguments: [(1.0, UInt8(3)), (0.5, UInt8(9)), (0.1, UInt8(23)), (0.01, UInt8(43)), (0.0, UInt8(127))])
func audioLevelOfSineFollowsRFC6464(amplitude: Double, level: UInt8) {
    var tone = ToneGenerator(frequency: 1000, amplitude: amplitude * 32767 / 32768)
    let frame = tone.nextFrame()
    #expect(AudioLevelMeter.audioLevel(of: frame) == level)
    #expect(abs(AudioLevelMeter.rms(of: frame) - amplitude / 2.0.squareRoot()) < 0.001)
}

@Test func meterAveragesSinceLastTakeAndKeepsRunningRMS() {
    var meter = AudioLevelMeter()
    var loud = ToneGenerator(frequency: 500, amplitude: 1)
    var silence = SilenceSource()
    meter.analyze(loud.nextFrame())
    meter.analyze(silence.readFrame()!)
    // Half the window at -3 dBov, half silent: -6 dBov.
    #expect(meter.takeAudioLevel() == 6)
    #expect(meter.takeAudioLevel() == 127)
    #expect(abs(meter.rms - 0.5) < 0.01)
}
