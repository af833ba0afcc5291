import SwiftRTCRTP
import Testing

@testable import SwiftRTCCongestion

@Suite struct DelayBasedEstimatorTests {
    /// Packets sent 1 ms apart in bursts of 3 form one group per burst.
    @Test func groupsBySendTimeBursts() {
        var grouping = InterArrival()
        var deltas: [InterArrival.Delta] = []
        for burst in 0..<4 {
            for i in 0..<3 {
                let send = Int64(burst) * 20_000 + Int64(i) * 1_000
                if let d = grouping.add(sendTime: send, arrivalTime: send + 30_000 + Int64(burst) * 2_000, size: 1000) {
                    deltas.append(d)
                }
            }
        }
        #expect(deltas.count == 2)
        #expect(deltas.allSatisfy { $0.sendDelta == 20_000 && $0.arrivalDelta == 22_000 && $0.sizeDelta == 0 })
    }

    /// Steadily growing one-way delay is over-use; a steady delay is normal; a shrinking one
    /// under-use.
    @Test(
        arguments: [(2_000, BandwidthUsage.overusing), (0, .normal), (-2_000, .underusing)] as [(Int64, BandwidthUsage)]
    )
    func detectorFollowsDelayTrend(growth: Int64, expected: BandwidthUsage) {
        var grouping = InterArrival()
        var trendline = TrendlineEstimator()
        var detector = OveruseDetector()
        var usage = BandwidthUsage.normal
        var seen: Set<BandwidthUsage> = []
        for i in 0..<60 {
            let send = Int64(i) * 20_000
            let arrival = send + 100_000 + Int64(i) * growth
            guard let delta = grouping.add(sendTime: send, arrivalTime: arrival, size: 1200) else { continue }
            let modified = trendline.update(delta)
            usage = detector.detect(
                modifiedTrend: modified,
                trend: trendline.trend,
                sendDelta: delta.sendDelta,
                deltaCount: trendline.deltaCount,
                now: delta.arrivalTime
            )
            seen.insert(usage)
        }
        #expect(seen.contains(expected))
        if expected == .normal { #expect(seen == [.normal]) }
    }

    /// The threshold adapts towards the trend's magnitude, within 6...600 ms.
    @Test func thresholdAdapts() {
        var detector = OveruseDetector()
        for i in 1...200 {
            _ = detector.detect(
                modifiedTrend: 1,
                trend: 0.01,
                sendDelta: 20_000,
                deltaCount: 10,
                now: Int64(i) * 20_000
            )
        }
        #expect(detector.threshold == 6)
        for i in 201...400 {
            _ = detector.detect(
                modifiedTrend: 20,
                trend: 0.01,
                sendDelta: 20_000,
                deltaCount: 10,
                now: Int64(i) * 20_000
            )
        }
        #expect(detector.threshold > 15 && detector.threshold < 20)
    }

    /// Over-use decreases to 0.85 of the throughput; normal use then holds once and increases.
    @Test func aimdStates() {
        var controller = AIMDRateController(startBitrate: 1_000_000, range: 10_000...5_000_000)
        controller.update(usage: .overusing, throughput: 800_000, roundTripTime: 50_000, now: 0)
        #expect(controller.bitrate == 680_000)
        #expect(controller.state == .hold)
        controller.update(usage: .normal, throughput: 800_000, roundTripTime: 50_000, now: 100_000)
        #expect(controller.state == .increase)
        // Near the measured capacity: additive, about a packet per response time (150 ms).
        #expect(abs(controller.bitrate - 686_400) <= 1)
        controller.update(usage: .underusing, throughput: 800_000, roundTripTime: 50_000, now: 200_000)
        #expect(controller.state == .hold && abs(controller.bitrate - 686_400) <= 1)
    }

    /// The receive-side estimate (REMB) falls when abs-send-time shows a growing queue, and a
    /// REMB is due at once then; at a steady rate it is due once a second.
    @Test func receiveSideEstimate() {
        var estimator = ReceiveSideBandwidthEstimator(startBitrate: 1_000_000)
        var due: [Int64] = []
        var now: Int64 = 0
        // 2 s at 800 kbit/s with no queueing: 1200-byte packets every 12 ms.
        for i in 0..<166 {
            now = Int64(i) * 12_000
            let abs = UInt32((now << 18) / 1_000_000) & 0xFF_FFFF
            estimator.packetReceived(absSendTime: abs, arrival: now + 40_000, size: 1200)
            if i % 8 == 0, estimator.update(roundTripTime: 50_000, now: now) != nil { due.append(now) }
        }
        #expect(due.count >= 2 && due.count <= 3)
        let steady = estimator.bitrate
        // Then the path queues: each packet arrives 3 ms later than the previous one would.
        var dropped = false
        for i in 166..<250 {
            now = Int64(i) * 12_000
            let abs = UInt32((now << 18) / 1_000_000) & 0xFF_FFFF
            estimator.packetReceived(absSendTime: abs, arrival: now + 40_000 + Int64(i - 165) * 3_000, size: 1200)
            if i % 8 == 0, let remb = estimator.update(roundTripTime: 50_000, now: now), remb < steady {
                dropped = true
            }
        }
        #expect(dropped)
        #expect(estimator.bitrate < steady)
    }
}
