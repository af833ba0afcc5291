import SwiftRTCCodecs
import Testing

@testable import SwiftRTCMedia

@Test func silenceIsZeroAndTimed() {
    var silence = SilenceSource(channels: 2, frameMilliseconds: 10)
    let a = silence.readFrame()!, b = silence.readFrame()!
    #expect(a.samples.count == 960 && a.samples.allSatisfy { $0 == 0 })
    #expect(b.timestamp == 480)
}

@Test func whiteNoiseIsBroadbandAtItsLevel() {
    var noise = WhiteNoiseSource(amplitude: 0.5, frameMilliseconds: 100)
    let frame = noise.readFrame()!
    // Uniform noise of peak A has RMS A/sqrt(3).
    #expect(abs(AudioLevelMeter.rms(of: frame) - 0.5 / 3.0.squareRoot()) < 0.02)
    let mean = frame.samples.reduce(0) { $0 + Int($1) } / frame.samples.count
    #expect(abs(mean) < 300)
    var again = WhiteNoiseSource(amplitude: 0.5, frameMilliseconds: 100)
    #expect(again.readFrame() == frame)
}

@Test func blackFramesAreBlackAndTimed() {
    var black = BlackFrameSource(width: 64, height: 48, framesPerSecond: 15)
    _ = black.readFrame()
    let frame = black.readFrame()!
    #expect(frame.timestamp == 6000)
    #expect(frame.y.allSatisfy { $0 == 16 } && frame.u.allSatisfy { $0 == 128 })
}
