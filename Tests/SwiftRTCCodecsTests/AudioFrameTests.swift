import Testing
@testable import SwiftRTCCodecs

@Test func audioFrameMeasuresItsDuration() {
    let frame = AudioFrame(samples: [Int16](repeating: 0, count: 1920), channels: 2, timestamp: 0)
    #expect(frame.samplesPerChannel == 960)
    #expect(frame.durationMilliseconds == 20)
}
