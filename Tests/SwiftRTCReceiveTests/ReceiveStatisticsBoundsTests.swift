import SwiftRTCCore
import Testing

@testable import SwiftRTCRTP
@testable import SwiftRTCReceive

/// Issue 17: RFC 3550 reception statistics under any sequence numbers and timestamps a peer
/// sends: no trap, one wild packet does not start them over, a timestamp jump is no jitter,
/// and the report block's fields stay in their ranges.
@Suite struct ReceiveStatisticsBoundsTests {
    /// A repaired packet from well behind the newest (NACK round trip at a high packet rate)
    /// counts as received; the old statistics took it for a restart of the source.
    @Test func aLateRepairIsCountedNotARestart() {
        var stats = ReceiveStatistics(ssrc: 1, clockRate: 90_000)
        for n in 0..<1000 where n != 150 {
            stats.record(sequenceNumber: UInt16(n), timestamp: UInt32(n / 3 * 3000), arrivalSeconds: Double(n) / 1000)
        }
        #expect(stats.cumulativeLost == 1)
        stats.record(sequenceNumber: 150, timestamp: 50 * 3000, arrivalSeconds: 1.0, retransmission: true)
        #expect(stats.received == 1000 && stats.expected == 1000 && stats.cumulativeLost == 0)
        #expect(stats.extendedHighestSequence == 999)
    }

    /// RFC 3550 A.1: a jump is believed when the next packet follows it (bad_seq); one wild
    /// packet is not counted and changes nothing.
    @Test(arguments: [3001, 20_000, 32_767, 40_000, 65_000])
    func oneWildPacketDoesNotRestartTheCounts(jump: Int) {
        var stats = ReceiveStatistics(ssrc: 1, clockRate: 90_000)
        for n in 0..<200 {
            stats.record(sequenceNumber: UInt16(1000 + n), timestamp: UInt32(n * 3000), arrivalSeconds: Double(n) / 30)
        }
        stats.record(sequenceNumber: UInt16(truncatingIfNeeded: 1199 + jump), timestamp: 0, arrivalSeconds: 7)
        #expect(stats.received == 200 && stats.extendedHighestSequence == 1199 && stats.jumpsRestarted == 0)
        for n in 200..<210 {
            stats.record(sequenceNumber: UInt16(1000 + n), timestamp: UInt32(n * 3000), arrivalSeconds: Double(n) / 30)
        }
        #expect(stats.received == 210 && stats.cumulativeLost == 0 && stats.extendedHighestSequence == 1209)
        // Two in a row: the source restarted its numbering.
        let restart = UInt16(truncatingIfNeeded: 1209 + jump)
        stats.record(sequenceNumber: restart, timestamp: 0, arrivalSeconds: 8)
        stats.record(sequenceNumber: restart &+ 1, timestamp: 0, arrivalSeconds: 8)
        #expect(stats.jumpsRestarted == 1 && stats.received == 1 && stats.cumulativeLost == 0)
        #expect(stats.extendedHighestSequence == UInt32(restart &+ 1))
    }

    /// A timestamp jump (a pause, a new source behind the same SSRC, a hostile peer) is left
    /// out of the jitter; the old statistics reported hours of jitter after it.
    @Test(arguments: [Int64(Int32.max), Int64(Int32.min), 90_000 * 600, -90_000 * 3] as [Int64])
    func aTimestampJumpIsNoJitter(jump: Int64) {
        var stats = ReceiveStatistics(ssrc: 1, clockRate: 90_000)
        var timestamp: UInt32 = 12345
        for n in 0..<100 {
            if n == 50 { timestamp = timestamp &+ UInt32(truncatingIfNeeded: jump) }
            stats.record(sequenceNumber: UInt16(n), timestamp: timestamp, arrivalSeconds: Double(n) / 30)
            timestamp &+= 3000
        }
        #expect(stats.jitter < 90, "jitter \(stats.jitter) ticks")
        #expect(stats.timestampJumps == 1)
    }

    /// Anything at all: no trap, and the report block's fields stay in range.
    @Test(arguments: [7, 8, 9])
    func randomInputNeverTraps(seed: UInt64) {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 29
        }
        for clockRate: UInt32 in [0, 1, 8000, 90_000, UInt32.max] {
            var stats = ReceiveStatistics(ssrc: 1, clockRate: clockRate)
            var sequence: UInt16 = 0, timestamp: UInt32 = 0
            for i in 0..<5000 {
                switch next() % 5 {
                case 0:
                    sequence = UInt16(truncatingIfNeeded: next())
                    timestamp = UInt32(truncatingIfNeeded: next())
                case 1: sequence &-= UInt16(truncatingIfNeeded: next() % 200)
                default: sequence &+= UInt16(truncatingIfNeeded: next() % 3000)
                }
                let arrival: Double =
                    switch next() % 50 {
                    case 0: .infinity
                    case 1: .nan
                    case 2: -1e300
                    default: Double(i) / 50
                    }
                stats.record(
                    sequenceNumber: sequence,
                    timestamp: timestamp,
                    arrivalSeconds: arrival,
                    retransmission: next() % 7 == 0
                )
                if i % 100 == 0 {
                    let report = stats.makeReport(lastSenderReport: 1, delaySinceLastSenderReport: 2)
                    #expect((-0x80_0000...0x7F_FFFF).contains(report.cumulativeLost))
                }
            }
        }
    }

    /// The 24-bit cumulative loss saturates on both sides when written.
    @Test func cumulativeLossIsClampedTo24Bits() throws {
        var stats = ReceiveStatistics(ssrc: 1, clockRate: 90_000)
        stats.record(sequenceNumber: 0, timestamp: 0, arrivalSeconds: 0)
        // 9 million packets lost: far more than 24 bits hold.
        var sequence: UInt16 = 0
        for _ in 0..<3100 {
            sequence &+= 2999
            stats.record(sequenceNumber: sequence, timestamp: 0, arrivalSeconds: 0)
        }
        #expect(stats.cumulativeLost == 0x7F_FFFF)
        let report = stats.makeReport()
        var bytes = [UInt8](repeating: 0, count: 64)
        let length = try bytes.withUnsafeMutableBytes {
            try RTCPPacket.receiverReport(ReceiverReport(ssrc: 2, reports: [report])).write(into: $0)
        }
        guard
            case let .receiverReport(parsed) = try Array(bytes[..<length]).withUnsafeBytes({
                try RTCPPacket.parseCompound($0)
            }).first
        else {
            Issue.record("not an RR")
            return
        }
        #expect(parsed.reports.first?.cumulativeLost == 0x7F_FFFF)
        #expect(parsed.reports.first?.fractionLost == 255)
    }
}
