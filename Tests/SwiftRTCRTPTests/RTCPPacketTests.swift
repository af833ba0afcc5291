import Foundation
import RTPFixtureSupport
import Testing

@testable import SwiftRTCRTP

@Suite struct RTCPPacketTests {
    func parse(_ bytes: [UInt8]) throws -> [RTCPPacket] {
        try bytes.withUnsafeBytes { try RTCPPacket.parseCompound($0) }
    }

    func roundTrip(_ packets: [RTCPPacket]) throws -> [RTCPPacket] {
        var out = [UInt8](repeating: 0, count: 4096)
        let length = try out.withUnsafeMutableBytes { try RTCPPacket.writeCompound(packets, into: $0) }
        #expect(length == packets.reduce(0) { $0 + $1.encodedLength })
        return try parse(Array(out[..<length]))
    }

    /// aiortc's RTCP files with the values aiortc's tests assert (expected.json).
    @Test func aiortcPacketsDecodeToTheExpectedValues() throws {
        let expected =
            try Fixtures.json(Fixtures.own.appendingPathComponent("packets/aiortc/expected.json"))["valid"]
            as! [String: [String: Any]]

        guard case let .senderReport(sr) = try #require(try parse(Fixtures.aiortc("rtcp_sr.bin")).first) else {
            Issue.record("not SR")
            return
        }
        let srValues = expected["rtcp_sr.bin"]!
        #expect(Int(sr.ssrc) == srValues["ssrc"] as! Int)
        #expect(sr.ntpTimestamp == (srValues["ntp_timestamp"] as! NSNumber).uint64Value)
        #expect(Int(sr.rtpTimestamp) == srValues["rtp_timestamp"] as! Int)
        #expect(
            Int(sr.packetCount) == srValues["packet_count"] as! Int
                && Int(sr.octetCount) == srValues["octet_count"] as! Int
        )
        checkReports(sr.reports, srValues["reports"] as! [[String: Int]])

        guard case let .receiverReport(rr) = try #require(try parse(Fixtures.aiortc("rtcp_rr.bin")).first) else {
            Issue.record("not RR")
            return
        }
        #expect(Int(rr.ssrc) == expected["rtcp_rr.bin"]!["ssrc"] as! Int)
        checkReports(rr.reports, expected["rtcp_rr.bin"]!["reports"] as! [[String: Int]])

        guard case let .sourceDescription(sdes) = try #require(try parse(Fixtures.aiortc("rtcp_sdes.bin")).first) else {
            Issue.record("not SDES")
            return
        }
        let chunk = (expected["rtcp_sdes.bin"]!["chunks"] as! [[String: Any]])[0]
        #expect(sdes.chunks.count == 1 && Int(sdes.chunks[0].source) == chunk["ssrc"] as! Int)
        let item = (chunk["items"] as! [[Any]])[0]
        #expect(
            Int(sdes.chunks[0].items[0].type) == item[0] as! Int && sdes.chunks[0].items[0].string == item[1] as! String
        )

        guard case let .pictureLossIndication(pli) = try #require(try parse(Fixtures.aiortc("rtcp_psfb_pli.bin")).first)
        else {
            Issue.record("not PLI")
            return
        }
        #expect(
            Int(pli.senderSSRC) == expected["rtcp_psfb_pli.bin"]!["ssrc"] as! Int
                && Int(pli.mediaSSRC) == expected["rtcp_psfb_pli.bin"]!["media_ssrc"] as! Int
        )

        guard case let .nack(nack) = try #require(try parse(Fixtures.aiortc("rtcp_rtpfb.bin")).first) else {
            Issue.record("not NACK")
            return
        }
        #expect(
            Int(nack.senderSSRC) == expected["rtcp_rtpfb.bin"]!["ssrc"] as! Int
                && Int(nack.mediaSSRC) == expected["rtcp_rtpfb.bin"]!["media_ssrc"] as! Int
        )
        #expect(nack.lost.map(Int.init) == expected["rtcp_rtpfb.bin"]!["lost"] as! [Int])

        guard case let .goodbye(bye) = try #require(try parse(Fixtures.aiortc("rtcp_bye.bin")).first) else {
            Issue.record("not BYE")
            return
        }
        #expect(bye.sources == [2_924_645_187])
        #expect(try parse(Fixtures.aiortc("rtcp_bye_no_sources.bin")) == [.goodbye(Goodbye(sources: []))])
        #expect(try parse(Fixtures.aiortc("rtcp_bye_padding.bin")) == [.goodbye(Goodbye(sources: []))])
    }

    func checkReports(_ reports: [ReceptionReport], _ expected: [[String: Int]]) {
        #expect(reports.count == expected.count)
        for (r, e) in zip(reports, expected) {
            #expect(
                Int(r.ssrc) == e["ssrc"] && Int(r.fractionLost) == e["fraction_lost"]
                    && Int(r.cumulativeLost) == e["packets_lost"]
            )
            #expect(Int(r.extendedHighestSequence) == e["highest_sequence"] && Int(r.jitter) == e["jitter"])
            #expect(Int(r.lastSenderReport) == e["lsr"] && Int(r.delaySinceLastSenderReport) == e["dlsr"])
        }
    }

    /// aiortc's invalid files: each throws a typed error, none traps.
    @Test(arguments: [
        ("rtcp_bye_invalid.bin", "RTCP BYE sources"),
        ("rtcp_psfb_invalid.bin", "RTCP payload-specific feedback (PLI)"),
        ("rtcp_rr_invalid.bin", "RTCP receiver report"),
        ("rtcp_rtpfb_invalid.bin", "RTCP RTP feedback (NACK)"),
        ("rtcp_sr_invalid.bin", "RTCP sender report"),
        ("rtcp_sdes_item_truncated.bin", "RTCP SDES item"),
        ("rtcp_sdes_source_truncated.bin", "RTCP SDES source"),
    ])
    func aiortcInvalidPacketsThrow(file: String, what: String) throws {
        let bytes = try Fixtures.aiortc(file)
        #expect { try parse(bytes) } throws: { ($0 as? RTPError)?.what == what }
    }

    @Test(arguments: [
        ("81c8", "RTCP header"),
        ("40c80000", "RTCP version"),
        ("81c80002 00000000", "RTCP packet"),
        ("a0cb0000", "RTCP padding count"),
        ("a0cb0001 00000005", "RTCP padding count"),
    ])
    func malformedHeaders(hex: String, what: String) {
        #expect { try parse([UInt8](hex: hex)) } throws: { ($0 as? RTPError)?.what == what }
    }

    @Test func everyTypeRoundTrips() throws {
        let report = ReceptionReport(
            ssrc: 9,
            fractionLost: 25,
            cumulativeLost: -3,
            extendedHighestSequence: 70_000,
            jitter: 12,
            lastSenderReport: 0xAABBCCDD,
            delaySinceLastSenderReport: 65536
        )
        let packets: [RTCPPacket] = [
            .senderReport(
                SenderReport(
                    ssrc: 1,
                    ntpTimestamp: 0xE000_0000_8000_0000,
                    rtpTimestamp: 3,
                    packetCount: 4,
                    octetCount: 5,
                    reports: [report]
                )
            ),
            .receiverReport(ReceiverReport(ssrc: 2, reports: [report, report])),
            .sourceDescription(
                SourceDescription(chunks: [
                    .init(source: 1, items: [.init(type: SourceDescription.Item.cname, text: "abc")]),
                    .init(source: 2, items: [.init(type: 1, text: "{uuid}"), .init(type: 6, text: "tool")]),
                ])
            ),
            .goodbye(Goodbye(sources: [1, 2], reason: "done")),
            .application(ApplicationDefined(subtype: 3, ssrc: 7, name: "TEST", data: [1, 2, 3, 4])),
            .nack(GenericNACK(senderSSRC: 1, mediaSSRC: 2, lost: [65530, 65531, 2, 40])),
            .pictureLossIndication(PictureLossIndication(senderSSRC: 1, mediaSSRC: 2)),
            .fullIntraRequest(FullIntraRequest(senderSSRC: 1, entries: [.init(ssrc: 2, sequenceNumber: 7)])),
            .remb(ReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: 1_500_000, ssrcs: [5, 6])),
            .transportFeedback(
                TransportLayerCC(
                    senderSSRC: 1,
                    mediaSSRC: 2,
                    baseSequenceNumber: 65534,
                    referenceTime: -5,
                    feedbackPacketCount: 9,
                    statuses: [.smallDelta(4), .notReceived, .largeDelta(-40), .smallDelta(255)]
                        + Array(repeating: .smallDelta(1), count: 20) + [.largeDelta(3000)]
                )
            ),
        ]
        #expect(try roundTrip(packets) == packets)
        #expect(packets.map(\.name) == ["SR", "RR", "SDES", "BYE", "APP", "NACK", "PLI", "FIR", "REMB", "TWCC"])
    }

    /// RFC 4585 §6.2.1: PID and BLP bits.
    @Test func nackPairsFollowRFC4585() throws {
        let nack = GenericNACK(senderSSRC: 1, mediaSSRC: 2, lost: [100, 101, 116, 117, 65535])
        // 65535 comes first (wrap), 101 is bit 0 and 116 bit 15 of 100's BLP, 117 is 17 away.
        let pairs = nack.pairs.map { [$0.pid, $0.blp] }
        #expect(pairs == [[65535, 0], [100, 0x8001], [117, 0]])
    }

    /// Reduced-size RTCP (RFC 5506): a lone feedback packet, no SR/RR first.
    @Test func reducedSizeFeedbackAlone() throws {
        #expect(
            try parse([UInt8](hex: "81ce0002 00000001 00000002")) == [
                .pictureLossIndication(PictureLossIndication(senderSSRC: 1, mediaSSRC: 2))
            ]
        )
    }

    /// Every RTCP datagram Chrome and Firefox sent in the fixtures parses; transport-cc and the
    /// reports survive a write and re-parse; XR stays as bytes.
    @Test(arguments: [
        "chrome-156-plain-rtp-opus-vp8-rtx-twcc.pcap", "firefox-153-to-aiortc-decrypted.pcap",
        "chrome-156-to-aiortc-decrypted.pcap", "gstreamer-1.22-vp8-rtp-rtcp.pcap",
    ])
    func browserRTCP(file: String) throws {
        var names: [String: Int] = [:]
        for datagram in try Fixtures.datagrams(Fixtures.own.appendingPathComponent(file)) {
            let isRTCP = datagram.payload.withUnsafeBytes { RTPDemultiplexer.isRTCP($0) }
            guard isRTCP else { continue }
            let packets = try parse(datagram.payload)
            for packet in packets { names[packet.name, default: 0] += 1 }
            #expect(try roundTrip(packets) == packets)
        }
        #expect(names["SR", default: 0] + names["RR", default: 0] > 0)
        if file.hasPrefix("chrome-156-plain") { #expect(names["TWCC", default: 0] > 50 && names["XR", default: 0] > 0) }
        if file.hasPrefix("firefox") { #expect(names["BYE", default: 0] > 0) }
    }

    @Test func truncationsOfRealRTCPNeverTrap() throws {
        for file in ["rtcp_sr.bin", "rtcp_rr.bin", "rtcp_sdes.bin", "rtcp_rtpfb.bin", "rtcp_psfb_pli.bin"] {
            let bytes = try Fixtures.aiortc(file)
            for length in 0..<bytes.count { _ = try? parse(Array(bytes[..<length])) }
        }
    }
}
