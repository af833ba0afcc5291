import SwiftRTCCodecs
import Testing

@testable import SwiftRTCMedia

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
