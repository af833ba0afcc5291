import SwiftRTCRTP
import Testing

@testable import SwiftRTCCongestion

@Suite struct FeedbackIntervalTests {
    /// 5% of the received bitrate for 544-bit feedback, between 100 and 250 ms.
    @Test(arguments: [
        (bitrate: 0.0, interval: 0.25),  // nothing received: the longest
        (bitrate: 48_000, interval: 0.2267),  // Opus 20 ms with headers: 544 / 2400
        (bitrate: 30_000, interval: 0.25),  // 544 / 1500 = 363 ms: capped
        (bitrate: 80_000, interval: 0.136),  // 544 / 4000
        (bitrate: 1_000_000, interval: 0.1),  // video: 11 ms, raised to the shortest
    ])
    func intervalKeepsToFivePercent(bitrate: Double, interval: Double) {
        #expect(abs(FeedbackInterval.interval(forBitrate: bitrate) - interval) < 0.0001)
    }

    /// Audio (120-byte packets every 20 ms, 48 kbit/s) ticked every 20 ms: feedback every
    /// 240 ms, the first tick at or past 227 ms.
    @Test func audioGetsFeedbackAboutFourTimesASecond() {
        var schedule = FeedbackInterval()
        var dueTimes: [Double] = []
        for tick in 0..<100 {
            let now = Double(tick) * 0.02
            schedule.received(bytes: 120, at: now)
            if schedule.due(now: now) { dueTimes.append(now) }
        }
        #expect(dueTimes.count == 8)
        #expect(zip(dueTimes, dueTimes.dropFirst()).allSatisfy { abs($1 - $0 - 0.24) < 1e-9 })
    }

    /// Video at 1.2 Mbit/s ticked every 10 ms: every 100 ms, even when the tick it is due on
    /// comes 2 ms early; nothing is due before the first packet.
    @Test func videoGetsFeedbackEveryHundredMilliseconds() {
        var schedule = FeedbackInterval()
        let dueBeforeAnyPacket = schedule.due(now: 5)
        #expect(!dueBeforeAnyPacket)
        var due = 0
        for tick in 0...100 {
            let now = 10 + Double(tick) * 0.01 - (tick > 0 && tick % 10 == 0 ? 0.002 : 0)
            schedule.received(bytes: 1500, at: now)
            if schedule.due(now: now) { due += 1 }
        }
        #expect(due == 10)
    }
}
