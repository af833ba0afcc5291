import SwiftRTCCodecs
import Testing

@testable import SwiftRTCMedia

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
