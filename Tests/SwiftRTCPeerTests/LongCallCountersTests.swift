import Foundation
import SwiftRTCRTP
import SwiftRTCSDP
import Testing

@testable import SwiftRTCPeer

/// A sender's counters a day into a video call: more than 2^32 bytes and packets sent, and
/// an RTP clock past its wrap. The stats keep the full 64-bit counts; the RTCP sender
/// report carries them modulo 2^32 and the RTP time across the wrap (RFC 3550 §6.4.1).
@Suite struct LongCallCountersTests {
    static func counters() -> RTPSender.Counters {
        var counters = RTPSender.Counters()
        counters.packetsSent = 1 << 32 + 5  // 4.3 billion packets
        counters.bytesSent = 5 << 32 + 7  // 20 GiB: a day of 2 Mbit/s
        counters.lastRTPTimestamp = UInt32.max - 99
        counters.lastSendTime = 86_400
        return counters
    }

    /// The SR half a second after the last packet, at 90 kHz: the RTP time 45,000 ticks
    /// later, past the wrap; the counts modulo 2^32.
    @Test func senderReportWrapsWhatIsThirtyTwoBits() throws {
        let report = try #require(
            Self.counters().senderReport(
                ssrc: 7,
                clockRate: 90_000,
                ntp: 0xE000_0000_8000_0000,
                now: 86_400.5,
                reports: []
            )
        )
        #expect(report.rtpTimestamp == 45_000 - 100)
        #expect(report.packetCount == 5 && report.octetCount == 7)
        #expect(report.ntpTimestamp == 0xE000_0000_8000_0000 && report.ssrc == 7)
        // Nothing sent yet: no SR.
        #expect(RTPSender.Counters().senderReport(ssrc: 7, clockRate: 90_000, ntp: 0, now: 1, reports: []) == nil)
    }

    /// outbound-rtp and its JSON show the 64-bit counts as they are.
    @Test func statsKeepTheFullCounts() throws {
        let c = Self.counters()
        let outbound = OutboundRTPStreamStats(
            ssrc: 7,
            kind: .video,
            mid: "1",
            codecId: "CO-96",
            mediaSourceId: "MS-7",
            remoteId: "RI-7",
            rtxSsrc: nil,
            packetsSent: c.packetsSent,
            bytesSent: c.bytesSent,
            headerBytesSent: c.headerBytesSent,
            retransmittedPacketsSent: 0,
            retransmittedBytesSent: 0,
            framesEncoded: 0,
            totalEncodeTime: 0,
            totalEncodedBytesTarget: 0,
            targetBitrate: 0,
            nackCount: 0,
            pliCount: 0,
            firCount: 0
        )
        var report = StatsReport(timestamp: 0)
        report.add(outbound)
        let stats = report.first(.outboundRTP)
        #expect(stats?.number("packetsSent") == 4_294_967_301)
        #expect(stats?.number("bytesSent") == 21_474_836_487)
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(json.contains("21474836487") && json.contains("4294967301"))
    }
}
