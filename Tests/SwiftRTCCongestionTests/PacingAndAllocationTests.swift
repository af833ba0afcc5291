import SwiftRTCRTP
import Testing

@testable import SwiftRTCCongestion

@Suite struct PacingAndAllocationTests {
    /// A 10-packet frame at 300 kbit/s leaves at 750 kbit/s: 1200 bytes every 12.8 ms, the
    /// first few at once (burst allowance).
    @Test func pacerSpreadsAFrame() {
        var budget = PacingBudget()
        var now: Int64 = 1_000_000
        budget.startFrame(bytes: 12_000, targetBitrate: 300_000, now: now)
        #expect(budget.rate == 750_000)
        var sendTimes: [Int64] = []
        for _ in 0..<10 {
            now += budget.wait(now: now)
            sendTimes.append(now)
            budget.sent(bytes: 1200, now: now)
        }
        let span = sendTimes.last! - sendTimes.first!
        #expect(span > 100_000 && span < 120_000)
        #expect(zip(sendTimes, sendTimes.dropFirst()).allSatisfy { $1 - $0 <= 12_800 })
    }

    /// Frames above the target (1.2 Mbit/s forwarded at a 300 kbit/s target) are paced at
    /// 2.5 times their own rate: the pacer keeps up.
    @Test func pacerKeepsUpWithAStreamAboveTarget() {
        var budget = PacingBudget()
        var now: Int64 = 0
        for _ in 0..<30 {
            budget.startFrame(bytes: 5_000, targetBitrate: 300_000, now: now)
            for _ in 0..<5 {
                now += budget.wait(now: now)
                budget.sent(bytes: 1_000, now: now)
            }
            now = max(now, (now / 33_333 + 1) * 33_333)
        }
        #expect(budget.mediaRate > 1_000_000 && budget.mediaRate < 1_400_000)
        #expect(budget.rate > 2_500_000)
    }

    /// A big keyframe is drained within 200 ms whatever the target.
    @Test func pacerDrainsBigFrames() {
        var budget = PacingBudget()
        budget.startFrame(bytes: 100_000, targetBitrate: 100_000, now: 0)
        #expect(budget.rate == 4_000_000)
    }

    @Test(
        arguments: [
            // target, audio, audio cap, video cap -> audio, video
            (1_000_000, 32_000, nil, nil, 32_000, 968_000),
            (1_000_000, 32_000, 16_000, 300_000, 16_000, 300_000),
            (40_000, 32_000, nil, nil, 32_000, 30_000),
            (500_000, 32_000, nil, 0, 32_000, 1),
        ] as [(Int, Int, Int?, Int?, Int, Int)]
    )
    func allocation(target: Int, audio: Int, audioCap: Int?, videoCap: Int?, expectedAudio: Int, expectedVideo: Int) {
        let allocation = BitrateAllocation(target: target, audioBitrate: audio, audioCap: audioCap, videoCap: videoCap)
        #expect(allocation.audio == expectedAudio)
        #expect(allocation.video == expectedVideo)
    }

    @Test func frameRateFollowsBitrate() {
        #expect(BitrateAllocation.frameRate(bitrate: 500_000, width: 640, height: 480, maximum: 30) == 30)
        #expect(BitrateAllocation.frameRate(bitrate: 75_000, width: 640, height: 480, maximum: 30) == 15)
        #expect(BitrateAllocation.frameRate(bitrate: 10_000, width: 640, height: 480, maximum: 30) == 5)
        #expect(BitrateAllocation.frameRate(bitrate: 75_000, width: 320, height: 240, maximum: 30) == 30)
    }
}
