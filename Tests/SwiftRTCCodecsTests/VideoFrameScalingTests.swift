import SignalTestSupport
import Testing

@testable import SwiftRTCCodecs

@Suite struct VideoFrameScalingTests {
    @Test func solidColourStaysSolid() {
        let frame = VideoFrame(width: 64, height: 48, timestamp: 7, y: 81, u: 90, v: 240)
        for (w, h) in [(32, 24), (128, 96), (33, 17), (640, 480)] {
            let scaled = frame.scaled(width: w, height: h)
            #expect(scaled.width == w && scaled.height == h && scaled.timestamp == 7)
            #expect(
                scaled.y.allSatisfy { $0 == 81 } && scaled.u.allSatisfy { $0 == 90 }
                    && scaled.v.allSatisfy { $0 == 240 }
            )
            #expect(scaled.u.count == ((w + 1) / 2) * ((h + 1) / 2))
        }
    }

    @Test func horizontalRampIsInterpolated() {
        var frame = VideoFrame(width: 4, height: 2)
        frame.y = [0, 100, 200, 240, 0, 100, 200, 240]
        let wide = frame.scaled(width: 8, height: 2)
        // Destination centres sit at source x = -0.25, 0.25, 0.75, ... 3.25 (clamped).
        #expect(wide.y[0..<8] == [0, 25, 75, 125, 175, 210, 230, 240])
        let narrow = frame.scaled(width: 2, height: 2)
        // Source x = 0.5 and 2.5.
        #expect(narrow.y[0..<2] == [50, 220])
    }

    @Test func downAndUpKeepsSmoothPicturesClose() {
        let pattern = TestSignals.pattern(width: 320, height: 240, index: 5)
        var smooth = pattern
        for row in 0..<240 {  // keep the smooth ramp rows only (the texture band would alias)
            if row > 240 / 3 - 2 && row < 240 / 2 + 2 {
                for col in 0..<320 { smooth.y[row * 320 + col] = UInt8(40 + row / 2) }
            }
        }
        let back = smooth.scaled(width: 160, height: 120).scaled(width: 320, height: 240)
        #expect(TestSignals.psnr(smooth, back) > 28)
    }

    @Test func scalingIntoAnExistingFrameUsesItsStrides() {
        let source = VideoFrame(width: 10, height: 10, y: 200)
        var destination = VideoFrame(width: 4, height: 4)
        destination.yStride = 6
        destination.y = [UInt8](repeating: 1, count: 24)
        source.scale(into: &destination)
        for row in 0..<4 {
            #expect(destination.y[(row * 6)..<(row * 6 + 4)].allSatisfy { $0 == 200 })
            #expect(destination.y[(row * 6 + 4)..<(row * 6 + 6)].allSatisfy { $0 == 1 }, "padding untouched")
        }
    }
}
