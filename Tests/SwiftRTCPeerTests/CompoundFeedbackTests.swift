import SwiftRTCRTP
import Testing

@testable import SwiftRTCPeer

/// Feedback to a peer that did not offer `a=rtcp-rsize` goes in compound packets (RFC 4585
/// §3.1): an RR first, from the feedback's SSRC, with the stream's report block; the feedback;
/// an SDES CNAME last. Janus 1.1.2 tells which stream a PLI is about from such a report block
/// and dropped our reduced-size PLIs (it took them for audio), so a listener in a room never
/// got a keyframe from a publisher that joined before it.
@Suite struct CompoundFeedbackTests {
    /// A keyframe whose first and third packets were lost: the receiver asks for a keyframe at
    /// once, with a report block that counts the third as lost.
    static func receiverMissingPackets() throws -> RTPReceiver {
        let receiver = ReceivePathLimitsTests.receiver()
        for (index, packet) in try VideoStreamStartTests.keyframePackets(firstSequence: 500).enumerated()
        where index != 0 && index != 2 {
            try ReceivePathLimitsTests.receive(receiver, packet, at: 1.0)
        }
        return receiver
    }

    @Test func feedbackToAPeerWithoutReducedSizeIsCompound() throws {
        let receiver = try Self.receiverMissingPackets()
        defer { receiver.stop() }
        let packets = receiver.feedback(now: 1.01, roundTripTime: 0.001, compoundCNAME: Array("bot-cname".utf8))
        #expect(VideoStreamStartTests.requestsKeyframe(packets))
        guard case .receiverReport(let report) = packets.first else {
            Issue.record("the compound packet starts with \(String(describing: packets.first))")
            return
        }
        let localSSRC = receiver.path.withLock { $0.recovery.parameters.localSSRC }
        #expect(report.ssrc == localSSRC)
        #expect(report.reports.map(\.ssrc) == [ReceivePathLimitsTests.mediaSSRC])
        #expect(report.reports.first.map { $0.fractionLost > 0 && $0.cumulativeLost == 1 } == true)
        guard case .sourceDescription(let description) = packets.last else {
            Issue.record("the compound packet ends with \(String(describing: packets.last))")
            return
        }
        #expect(description.chunks.map(\.source) == [localSSRC])
        #expect(description.chunks.first?.items.first?.text == Array("bot-cname".utf8))

        // On the wire and back, as one valid compound packet.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
        defer { buffer.deallocate() }
        let length = try RTCPPacket.writeCompound(packets, into: buffer)
        let parsed = try RTCPPacket.parseCompound(UnsafeRawBufferPointer(rebasing: buffer[..<length]))
        #expect(parsed == packets)
    }

    /// The compound packet's report block does not start a new interval: the next regular
    /// report still counts the loss since the last one.
    @Test func theFeedbackReportLeavesTheRegularReportsInterval() throws {
        let receiver = try Self.receiverMissingPackets()
        defer { receiver.stop() }
        let packets = receiver.feedback(now: 1.01, roundTripTime: 0.001, compoundCNAME: Array("bot-cname".utf8))
        guard case .receiverReport(let report) = packets.first, let block = report.reports.first else {
            Issue.record("no report block in \(packets)")
            return
        }
        let regular = receiver.makeReceptionReport(now: 1.01)
        #expect(regular?.fractionLost == block.fractionLost)
        #expect(regular?.extendedHighestSequence == block.extendedHighestSequence)
        #expect(
            receiver.makeReceptionReport(now: 1.02)?.fractionLost == 0,
            "the regular report starts the next interval"
        )
    }

    /// To a peer that offered `a=rtcp-rsize`: the feedback alone (reduced-size, RFC 5506).
    @Test func feedbackToAPeerWithReducedSizeIsTheFeedbackAlone() throws {
        let receiver = try Self.receiverMissingPackets()
        defer { receiver.stop() }
        let packets = receiver.feedback(now: 1.01, roundTripTime: 0.001, compoundCNAME: nil)
        #expect(VideoStreamStartTests.requestsKeyframe(packets))
        #expect(
            !packets.contains {
                switch $0 {
                case .receiverReport, .senderReport, .sourceDescription: true
                default: false
                }
            }
        )
    }
}
