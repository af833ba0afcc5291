import RTPFixtureSupport
import SwiftRTCCore
import Testing

@testable import SwiftRTCRTP
@testable import SwiftRTCReceive

/// The wraps a day-long call meets on the receiving side, each driven across quickly by
/// starting near the edge: 16-bit sequence numbers (every 22 minutes of 50 packets/s),
/// 32-bit timestamps (every 24.9 hours at 48 kHz, 13.3 hours at 90 kHz), and the middle 32
/// bits of NTP time that round trips are measured in (every 18.2 hours).
@Suite struct LongCallWrapTests {
    /// A 48 kHz stream of 140,000 packets from sequence number 65,000 (three wraps) whose
    /// timestamps pass 2^32 on the way: nothing lost, no jitter, no jump, and the extended
    /// highest sequence number carries the three cycles.
    @Test func receiveStatisticsFollowThreeSequenceCyclesAndTheTimestampWrap() {
        var stats = ReceiveStatistics(ssrc: 7, clockRate: 48_000)
        let packets = 140_000
        let firstTimestamp = UInt32.max - 960 * 1000 + 1  // wraps after 1000 packets
        let start = 25.0 * 3600  // a monotonic clock a day into the call
        for n in 0..<packets {
            stats.record(
                sequenceNumber: UInt16(truncatingIfNeeded: 65_000 + n),
                timestamp: firstTimestamp &+ UInt32(n) &* 960,
                arrivalSeconds: start + Double(n) * 0.02
            )
        }
        let report = stats.makeReport()
        #expect(stats.expected == Int64(packets) && stats.received == Int64(packets))
        #expect(report.cumulativeLost == 0 && report.fractionLost == 0)
        #expect(report.extendedHighestSequence == UInt32(65_000 + packets - 1))
        #expect(report.extendedHighestSequence >> 16 == 3)
        #expect(report.jitter == 0 && stats.timestampJumps == 0 && stats.jumpsRestarted == 0)
    }

    /// (clock rate, timestamp step, seconds between packets): 20 ms audio, 30 fps video.
    static let streams: [(UInt32, UInt32, Double)] = [(48_000, 960, 0.02), (90_000, 3000, 1.0 / 30)]

    /// Packets arriving evenly with timestamps across 2^32, at 48 kHz (20 ms) and 90 kHz
    /// (30 fps): each plays out the same delay after it came, in order, and the wrap is
    /// neither a jump nor jitter.
    @Test(arguments: streams)
    func jitterBufferPlaysOutEvenlyAcrossTheTimestampWrap(clockRate: UInt32, step: UInt32, interval: Double) throws {
        let buffer = JitterBuffer(
            capacity: 64,
            maximumWait: 0.1,
            clockRate: clockRate,
            minimumDelay: 0.04,
            maximumDelay: 0.5
        )
        let count = 200
        let firstTimestamp = UInt32.max - step * 100 + 1  // the 101st packet has timestamp 0
        let start = 25.0 * 3600
        var played: [(sequence: UInt16, timestamp: UInt32, delay: Double)] = []
        var arrivals: [UInt16: Double] = [:]
        var now = start
        var next = 0
        while played.count < count, now < start + Double(count) * interval + 1 {
            while next < count, start + Double(next) * interval <= now {
                let sequence = UInt16(truncatingIfNeeded: 65_500 + next)
                let bytes = try writeRTP(
                    RTPHeader(
                        payloadType: 111,
                        sequenceNumber: sequence,
                        timestamp: firstTimestamp &+ UInt32(next) &* step,
                        ssrc: 3
                    )
                ) { w in try [UInt8](repeating: 1, count: 40).withUnsafeBytes { try w.appendPayload($0) } }
                let result = bytes.withUnsafeBytes { buffer.insert($0, arrival: now) }
                #expect(result == .accepted)
                arrivals[sequence] = now
                next += 1
            }
            while let event = buffer.pop(now: now) {
                guard case .packet(let packet) = event else {
                    Issue.record("a gap at \(now - start) s")
                    continue
                }
                played.append((packet.sequenceNumber, packet.timestamp, now - arrivals[packet.sequenceNumber]!))
            }
            now += 0.001
        }
        #expect(played.count == count)
        #expect(played.map(\.sequence) == (0..<count).map { UInt16(truncatingIfNeeded: 65_500 + $0) })
        #expect(played[100].timestamp == 0, "the wrap is in the middle")
        // The first packets wait for earlier ones (maximumWait); from then on every packet
        // plays 40 ms (the minimum delay) after it came, within the 1 ms steps.
        let steady = played.dropFirst(10).map(\.delay)
        #expect(steady.allSatisfy { abs($0 - 0.04) < 0.0021 }, "\(steady.min()!)...\(steady.max()!)")
        #expect(buffer.timestampJumps == 0 && buffer.jitter < 0.001 && buffer.lostPackets == 0)
    }

    /// RFC 3550 §6.4.1 across the wrap of the middle 32 bits of NTP time: a sender report
    /// sent 0.0625 s before they wrap, held 0.5 s by the receiver, whose report comes back
    /// 0.6 s after the sender report was sent (after the wrap) measures 0.1 s.
    @Test func roundTripTimeAcrossTheCompactNTPWrap() {
        let seconds: UInt64 = 0xE000_FFFF  // the middle bits wrap when this passes 0xE001_0000
        let sent = seconds << 32 | 0xF000_0000  // .9375 s
        let back = sent + UInt64(0.6 * 4_294_967_296)
        #expect(NTPTime.middle(sent) == 0xFFFF_F000 && NTPTime.middle(back) < 0x1_0000)
        let block = ReceptionReport(
            ssrc: 1,
            fractionLost: 0,
            cumulativeLost: 0,
            extendedHighestSequence: 0,
            jitter: 0,
            lastSenderReport: NTPTime.middle(sent),
            delaySinceLastSenderReport: 32_768  // 0.5 s
        )
        let rtt = block.roundTripTime(arrivedAt: NTPTime.middle(back))
        #expect(abs((rtt ?? 0) - 0.1) < 0.0001)
        // Without a sender report to refer to, no round trip.
        var none = block
        none.lastSenderReport = 0
        #expect(none.roundTripTime(arrivedAt: NTPTime.middle(back)) == nil)
    }
}
