import Testing

@testable import SwiftRTCRTP
@testable import SwiftRTCReceive

@Suite struct ReceiveStatisticsTests {
    /// RFC 3550 A.3: expected = extended max - base + 1, lost = expected - received, fraction
    /// over the interval in 1/256.
    @Test func lossAcrossTheWrap() {
        var stats = ReceiveStatistics(ssrc: 5, clockRate: 90_000)
        var received = 0
        for n in 0..<100 where n % 10 != 3 {  // 10 lost
            stats.record(
                sequenceNumber: UInt16(truncatingIfNeeded: 65500 + n),
                timestamp: UInt32(n * 3000),
                arrivalSeconds: Double(n) / 30
            )
            received += 1
        }
        let report = stats.makeReport()
        #expect(stats.expected == 100)  // 65500 ... 65599, across the wrap
        #expect(report.cumulativeLost == 100 - Int32(received) && received == 90)
        #expect(report.extendedHighestSequence == 65500 + 99)
        #expect(report.fractionLost == UInt8((10 * 256) / 100))
        #expect(report.jitter == 0)
        // Next interval: nothing lost.
        for n in 100..<110 {
            stats.record(
                sequenceNumber: UInt16(truncatingIfNeeded: 65500 + n),
                timestamp: UInt32(n * 3000),
                arrivalSeconds: Double(n) / 30
            )
        }
        #expect(stats.makeReport().fractionLost == 0)
    }

    @Test func duplicatesMakeLossNegative() {
        var stats = ReceiveStatistics(ssrc: 5, clockRate: 48_000)
        for sequence: UInt16 in [1, 2, 2, 3] { stats.record(sequenceNumber: sequence, timestamp: 0, arrivalSeconds: 0) }
        #expect(stats.cumulativeLost == -1)
    }

    /// RFC 3550 A.8: J += (|D| - J)/16; packets alternately 10 ms late converge toward 900 ticks.
    @Test func jitterConverges() {
        var stats = ReceiveStatistics(ssrc: 5, clockRate: 90_000)
        for n in 0..<400 {
            stats.record(
                sequenceNumber: UInt16(n),
                timestamp: UInt32(n * 3000),
                arrivalSeconds: Double(n) / 30 + (n % 2 == 0 ? 0 : 0.01)
            )
        }
        #expect((850...900).contains(stats.jitter))
        #expect(abs(stats.jitterSeconds - 0.01) < 0.001)
    }
}
