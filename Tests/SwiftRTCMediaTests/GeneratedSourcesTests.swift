import Testing
import SwiftRTCCodecs
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

@Test(arguments: [(640, 480), (320, 240), (1280, 720), (176, 144)])
func testPatternCounterReadsBack(width: Int, height: Int) {
    var pattern = TestPatternSource(width: width, height: height, framesPerSecond: 30)
    for expected in 0..<40 {
        let frame = pattern.readFrame()!
        #expect(frame.timestamp == UInt64(expected) * 3000)
        #expect(TestPatternSource.readFrameCounter(from: frame) == expected)
    }
}

@Test func testPatternCounterSurvivesNoiseAndRejectsOtherPictures() {
    var pattern = TestPatternSource(width: 320, height: 240)
    for _ in 0..<123_456 % 1000 { _ = pattern.readFrame() }
    var frame = pattern.readFrame()!
    // Add +-40 luma noise as a lossy codec might.
    var state: UInt32 = 1
    for i in frame.y.indices {
        state = state &* 1_664_525 &+ 1_013_904_223
        frame.y[i] = UInt8(clamping: Int(frame.y[i]) + Int(state >> 24) % 81 - 40)
    }
    #expect(TestPatternSource.readFrameCounter(from: frame) == 456)
    #expect(TestPatternSource.readFrameCounter(from: VideoFrame(width: 320, height: 240)) == nil)
    #expect(TestPatternSource.readFrameCounter(from: VideoFrame(width: 320, height: 240, y: 235)) == nil)
}

@Test func testPatternMoves() {
    var pattern = TestPatternSource(width: 320, height: 240)
    let first = pattern.readFrame()!, second = pattern.readFrame()!
    let lowerThird = (160 * 320)..<(200 * 320)
    #expect(first.y[lowerThird] != second.y[lowerThird])
}

@Test func pacingAsFastAsPossibleAndRealTime() async throws {
    var count = 0
    for try await _ in SilenceSource().frames(pacing: .asFastAsPossible).prefix(500) { count += 1 }
    #expect(count == 500)

    // Real time: 6 frames of 20 ms are due over 100 ms after the first.
    let clock = ContinuousClock()
    let start = clock.now
    var timestamps: [UInt64] = []
    for try await frame in ToneGenerator().frames(pacing: .realTime).prefix(6) { timestamps.append(frame.timestamp) }
    let elapsed = clock.now - start
    #expect(timestamps == [0, 960, 1920, 2880, 3840, 4800])
    #expect(elapsed >= .milliseconds(100))
}

@Test func pacingUnwrapsRTPTimestamps() {
    typealias Iterator = Pacer
    #expect(Iterator.signedDelta(from: 0xFFFF_FF00, to: 0x100, bits: 32) == 0x200)
    #expect(Iterator.signedDelta(from: 0x100, to: 0xFFFF_FF00, bits: 32) == -0x200)
    #expect(Iterator.signedDelta(from: 10, to: 5, bits: 64) == -5)
}
