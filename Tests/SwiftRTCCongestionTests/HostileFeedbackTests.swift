import SwiftRTCRTP
import Testing

@testable import SwiftRTCCongestion

/// Feedback a hostile peer could send to the estimators: times that jump without end must
/// neither trap nor carry the estimators' clocks out of range.
@Suite struct HostileFeedbackTests {
    /// transport-cc whose reference time jumps 8.9 minutes forward in every packet (the most
    /// a 24-bit signed step can say): followed as is, the unwrapped arrival times grow by
    /// 2^23 x 64 ms each time and overflow after 1.7·10^7 packets. Jumps past
    /// ``SendTimeHistory/maximumReferenceJump`` restart the time axis instead.
    @Test func referenceTimeJumpsDoNotRunAway() {
        var history = SendTimeHistory()
        var reference: Int32 = 0
        var largest: Int64 = 0
        for i in 0..<2000 {
            let sequence = UInt16(truncatingIfNeeded: i)
            history.record(sequenceNumber: sequence, size: 1000, sendTime: Int64(i) * 10_000)
            reference = (reference + 0x7F_FFFF) & 0xFF_FFFF
            let signed = reference & 0x80_0000 != 0 ? reference - 0x100_0000 : reference
            let feedback = TransportLayerCC(
                senderSSRC: 1,
                mediaSSRC: 2,
                baseSequenceNumber: sequence,
                referenceTime: signed,
                feedbackPacketCount: UInt8(truncatingIfNeeded: i),
                statuses: [.smallDelta(4)]
            )
            for result in history.results(for: feedback) { largest = max(largest, abs(result.arrivalTime ?? 0)) }
        }
        #expect(history.referenceJumps == 1999)
        // Within one 24-bit reference (±2^23 x 64 ms), not 2000 of them added up.
        #expect(largest <= 0x80_0000 * 64_000 + 1000)
    }

    /// A feedback that claims 65535 statuses from a few bytes of run-length chunks: only the
    /// history's capacity of them is looked at.
    @Test func hugeStatusCountsAreBounded() {
        var history = SendTimeHistory()
        for i in 0..<100 { history.record(sequenceNumber: UInt16(i), size: 1000, sendTime: Int64(i) * 1000) }
        let feedback = TransportLayerCC(
            senderSSRC: 1,
            mediaSSRC: 2,
            baseSequenceNumber: 0,
            referenceTime: 0,
            feedbackPacketCount: 0,
            statuses: [TransportLayerCC.Status](repeating: .smallDelta(1), count: 0xFFFF)
        )
        #expect(history.results(for: feedback).count == 100)
    }

    /// abs-send-time that jumps 32 s forward with every packet (REMB peers): followed as is,
    /// `sendUnits * 10^6` overflowed after 1.1 million packets. Jumps beyond
    /// ``ReceiveSideBandwidthEstimator/maximumSendTimeJump`` count as no time.
    @Test func absSendTimeJumpsDoNotTrap() {
        var estimator = ReceiveSideBandwidthEstimator()
        var absSendTime: UInt32 = 0
        let packets = 1_200_000
        for i in 0..<packets {
            estimator.packetReceived(absSendTime: absSendTime, arrival: Int64(i) * 100, size: 100)
            absSendTime = (absSendTime &+ 0x7F_FFFF) & 0xFF_FFFF
        }
        #expect(estimator.sendTimeJumps == Int64(packets - 1))
        #expect(estimator.update(roundTripTime: 100_000, now: Int64(packets) * 100) != nil)
    }

    /// An honest sender's abs-send-time, wrapping every 64 s for two days, is followed (the
    /// time axis restarts only past 48 days).
    @Test func honestAbsSendTimeIsFollowed() {
        var estimator = ReceiveSideBandwidthEstimator()
        // One packet every 5 s for 2 days: 1/13 of the 64 s wrap per step.
        for i in 0..<34_560 {
            let seconds = Double(i) * 5
            let units = UInt32(truncatingIfNeeded: Int64(seconds * Double(1 << 18))) & 0xFF_FFFF
            estimator.packetReceived(absSendTime: units, arrival: Int64(seconds * 1e6), size: 1000)
        }
        #expect(estimator.sendTimeJumps == 0)
    }
}
