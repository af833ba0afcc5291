import Foundation
import SwiftRTCCore
import SwiftRTCRTP
import TestScheduling
import Testing

@testable import SwiftRTCPeer

/// A peer that completed ICE and DTLS honestly, then sends each class of hostile input
/// (``HostilePeer``). Each test checks that the process stays up, the victim's connection
/// stays connected and counts what it refused, the process's CPU and memory stay within the
/// stated bounds (measured with getrusage and /proc, never by timing), and an honest call in
/// the same process keeps decoding video. The figures are printed for the record.
@Suite(.serialized, .realTime) struct HostilePeerTests {
    /// Bounds for every attack below (a debug build, two cores, the rest of the suite beside).
    static let maxResidentGrowthMegabytes = 64.0
    static let maxCPUSecondsPerThousandPackets = 2.0

    /// Runs `attack` (which returns how many packets it sent) against a fresh victim, waits
    /// until the victim's transport stats satisfy `processed` (it has worked through what
    /// arrived; at most 10 s), then the checks every class shares; returns those stats for
    /// the class's own.
    static func underAttack(
        _ name: String,
        until processed: @escaping ([String: StatsReport.Value]) -> Bool = { _ in true },
        _ attack: (HostilePeer) async throws -> Int
    ) async throws -> [String: StatsReport.Value] {
        guard let peer = try await HostilePeer.start() else {
            Issue.record("\(name): the calls did not connect")
            return [:]
        }
        let framesBefore = peer.honestVideoFrames
        let before = ProcessFootprint.now()
        let sent = try await attack(peer)
        // Let the victim's transport thread work through what arrived.
        try await Task.sleep(for: .milliseconds(300))
        _ = await LoopbackCall.wait(timeout: .seconds(10)) { processed(await peer.victimTransportStats()) }
        let used = ProcessFootprint.now().since(before)
        let stats = await peer.victimTransportStats()
        let keptDecoding = await peer.honestKeepsDecoding(since: framesBefore)
        let victimState = await peer.victim.connectionState
        print(
            "Hostile peer, \(name): \(sent) packets, CPU \(String(format: "%.2f", used.cpuSeconds)) s, resident +\(String(format: "%.1f", used.residentMegabytes)) MB, honest call \(peer.honestVideoFrames - framesBefore) frames decoded, victim \(victimState), limits hit \(stats.filter { $0.key.hasPrefix("limitHits.") }.map { "\($0.key)=\($0.value)" }.sorted())"
        )
        #expect(victimState == .connected, "\(name): the victim's connection")
        #expect(keptDecoding, "\(name): the honest call stopped decoding")
        #expect(used.residentMegabytes < maxResidentGrowthMegabytes, "\(name): resident memory")
        #expect(used.cpuSeconds < maxCPUSecondsPerThousandPackets * Double(max(sent, 1000)) / 1000 + 2, "\(name): CPU")
        await peer.close()
        return stats
    }

    /// One REMB saying 2^63 bit/s, then receiver reports: the loss-based estimate limited
    /// itself to 1.5 times the REMB and trapped.
    @Test func rembAndReports() async throws {
        let stats = try await Self.underAttack("REMB exponent 63") { peer in
            for sender in peer.victimSenders {
                peer.sendRTCP([.remb(ReceiverEstimatedMaximumBitrate(senderSSRC: 7, bitrate: .max, ssrcs: [sender]))])
                let block = ReceptionReport(
                    ssrc: sender,
                    fractionLost: 200,
                    cumulativeLost: 0x7F_FFFF,
                    extendedHighestSequence: .max,
                    jitter: .max,
                    lastSenderReport: 0xFFFF_FFFF,
                    delaySinceLastSenderReport: 1
                )
                peer.sendRTCP([.receiverReport(ReceiverReport(ssrc: 7, reports: [block]))])
            }
            return 2 * peer.victimSenders.count
        }
        #expect(stats["limitHits.bitrate"]?.number ?? 0 >= 1)
        #expect(stats["limitHits.roundTripTime"]?.number ?? 0 >= 1)
    }

    /// transport-cc whose reference time jumps forward by the most 24 bits can say in every
    /// packet, claiming 65535 statuses from a few bytes (the last 50 received, 8.2 s apart).
    @Test func transportFeedbackJumpsAndHugeCounts() async throws {
        let stats = try await Self.underAttack(
            "transport-cc jumps",
            until: { $0["limitHits.feedbackTimeJump"]?.number ?? 0 >= 100 }
        ) { peer in
            // Written once (the attacker's own work is not what is measured); the reference
            // time (bytes 16-18) and feedback count (19) are patched per packet.
            let statuses =
                [TransportLayerCC.Status](repeating: .notReceived, count: 0xFFFF - 50)
                + [TransportLayerCC.Status](repeating: .largeDelta(.max), count: 50)
            let feedback = TransportLayerCC(
                senderSSRC: 7,
                mediaSSRC: peer.victimSenders[0],
                baseSequenceNumber: 0,
                referenceTime: 0,
                feedbackPacketCount: 0,
                statuses: statuses
            )
            var bytes = [UInt8](repeating: 0, count: 1500)
            let length = try bytes.withUnsafeMutableBytes {
                try RTCPPacket.writeCompound([.transportFeedback(feedback)], into: $0)
            }
            bytes = Array(bytes[..<length])
            var reference: UInt32 = 0
            for i in 0..<400 {
                reference = (reference + 0x7F_FFFF) & 0xFF_FFFF
                bytes[16] = UInt8(reference >> 16)
                bytes[17] = UInt8(reference >> 8 & 0xFF)
                bytes[18] = UInt8(reference & 0xFF)
                bytes[19] = UInt8(truncatingIfNeeded: i)
                peer.sendRTCP(bytes)
                if i % 50 == 49 { try await Task.sleep(for: .milliseconds(20)) }
            }
            return 400
        }
        #expect(stats["limitHits.feedbackTimeJump"]?.number ?? 0 >= 100)
    }

    /// 20,000 SSRCs with the video payload type: libsrtp cloned a stream for each and kept it,
    /// and the transport routed each. Both keep 32, the newest taking the place of the one
    /// silent longest: each new SSRC is still routed (a full table once locked every new SSRC
    /// out for good).
    @Test func ssrcFlood() async throws {
        let stats = try await Self.underAttack("SSRC flood") { peer in
            for i in 0..<20_000 {
                peer.sendRTP(
                    HostilePeer.rtp(
                        payloadType: 96,
                        sequence: 1,
                        timestamp: 0,
                        ssrc: 0x5000_0000 + UInt32(i),
                        payload: [0x10, 0, 0, 0]
                    )
                )
                if i % 500 == 499 { try await Task.sleep(for: .milliseconds(10)) }
            }
            return 20_000
        }
        let limit = Double(RemoteInputLimits.maxRemoteSSRCsPerTransport)
        #expect(stats["srtpRemoteStreams"]?.number ?? .infinity <= limit)
        #expect(stats["srtpRemoteStreamsEvicted"]?.number ?? 0 >= 10_000)
        #expect(stats["limitHits.remoteSSRCs"]?.number ?? 0 >= 10_000)
        #expect(stats["rtpPacketsUnroutable"]?.number ?? .infinity < 100)
    }

    /// SRTCP as fast as the peer can: garbage that authenticates, and valid reports, 3000 in
    /// all; the victim reads at most its budget per second.
    @Test func rtcpFloodAndGarbage() async throws {
        let stats = try await Self.underAttack("RTCP flood") { peer in
            var generator = SystemRandomNumberGenerator()
            for i in 0..<3000 {
                if i % 2 == 0 {
                    var garbage = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
                    garbage[0] = 0x80 | (garbage[0] & 0x3F)
                    peer.sendRTCP(garbage)
                } else {
                    peer.sendRTCP([.receiverReport(ReceiverReport(ssrc: 7))])
                }
                if i % 300 == 299 { try await Task.sleep(for: .milliseconds(5)) }
            }
            return 3000
        }
        #expect(stats["limitHits.rtcpRate"]?.number ?? 0 >= 500)
        // Garbage that authenticated but does not parse as RTCP is counted too.
        #expect(stats["packetsMalformed"]?.number ?? 0 >= 1)
    }

    /// RTP of one stream whose sequence numbers jump by 32767 and timestamps anywhere.
    @Test func sequenceAndTimestampJumps() async throws {
        let stats = try await Self.underAttack("sequence and timestamp jumps") { peer in
            var sequence: UInt16 = 0
            var generator = SystemRandomNumberGenerator()
            for i in 0..<5000 {
                sequence &+= i % 3 == 0 ? 32767 : UInt16.random(in: 0 ... .max, using: &generator)
                let timestamp = UInt32.random(in: 0 ... .max, using: &generator)
                peer.sendRTP(
                    HostilePeer.rtp(
                        payloadType: 96,
                        sequence: sequence,
                        timestamp: timestamp,
                        ssrc: 0x6000_0001,
                        marker: i % 2 == 0,
                        payload: [0x10, 0x90, 0x0C, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xF0, 0x00]
                            + [UInt8](repeating: 0x55, count: 100)
                    )
                )
                if i % 250 == 249 { try await Task.sleep(for: .milliseconds(10)) }
            }
            return 5000
        }
        #expect(stats["limitHits.sequenceJump"]?.number ?? 0 >= 100)
    }

    /// NACKs for every sequence number of the victim's senders, again and again.
    @Test func nackStorm() async throws {
        var resent = 0.0
        let stats = try await Self.underAttack("NACK storm") { peer in
            let before = await peer.victim.stats().all(.outboundRTP).reduce(0) {
                $0 + ($1.values["retransmittedPacketsSent"]?.number ?? 0)
            }
            var sent = 0
            for round in 0..<4 {
                for start in stride(from: 0, to: 65536, by: 1000) {
                    for sender in peer.victimSenders {
                        let lost = (start..<min(start + 1000, 65536)).map { UInt16($0) }
                        peer.sendRTCP([.nack(GenericNACK(senderSSRC: 7, mediaSSRC: sender, lost: lost))])
                        sent += 1
                    }
                }
                _ = round
                try await Task.sleep(for: .milliseconds(250))
            }
            let after = await peer.victim.stats().all(.outboundRTP).reduce(0) {
                $0 + ($1.values["retransmittedPacketsSent"]?.number ?? 0)
            }
            resent = after - before
            return sent
        }
        print("Hostile peer, NACK storm: the victim resent \(Int(resent)) packets")
        // A second of the victim's own media at most (tone and 160x120 pattern: some 100 packets).
        // (Most of what is asked for is not in the history; what is, goes out once per round trip.)
        #expect(resent <= 500)
        _ = stats
    }

    /// PLI and FIR from the peer, 400 in a second: the victim's encoder makes keyframes at
    /// the rate limit, not at the peer's.
    @Test func keyframeRequestStorm() async throws {
        var keyframes = 0.0
        _ = try await Self.underAttack("PLI/FIR storm") { peer in
            let before = await peer.victim.stats().all(.outboundRTP).reduce(0) {
                $0 + ($1.values["keyFramesEncoded"]?.number ?? 0)
            }
            for i in 0..<400 {
                for sender in peer.victimSenders {
                    peer.sendRTCP([.pictureLossIndication(PictureLossIndication(senderSSRC: 7, mediaSSRC: sender))])
                    peer.sendRTCP([
                        .fullIntraRequest(
                            FullIntraRequest(
                                senderSSRC: 7,
                                entries: [.init(ssrc: sender, sequenceNumber: UInt8(truncatingIfNeeded: i))]
                            )
                        )
                    ])
                }
                if i % 40 == 39 { try await Task.sleep(for: .milliseconds(100)) }
            }
            try await Task.sleep(for: .milliseconds(200))
            let after = await peer.victim.stats().all(.outboundRTP).reduce(0) {
                $0 + ($1.values["keyFramesEncoded"]?.number ?? 0)
            }
            keyframes = after - before
            return 1600
        }
        print("Hostile peer, PLI/FIR storm: the victim encoded \(Int(keyframes)) keyframes in 1.2 s")
        #expect(keyframes <= 6)
    }

    /// VP8 keyframes that say 16383 x 16383 (libvpx would allocate 400 MB for each).
    @Test func oversizedKeyframes() async throws {
        let stats = try await Self.underAttack("oversized keyframes") { peer in
            // The hostile side's own video stops, so its frames are the only ones the victim's
            // video receiver assembles.
            peer.call.tracks[1].stop()
            try await Task.sleep(for: .milliseconds(200))
            // Sequence numbers ahead of what the victim's video receiver last had (behind it,
            // the jitter buffer would skip them as late).
            let receiver = await peer.victim.transceiverList.first { $0.receiver.kind == .video }?.receiver
            let highest = receiver?.path.withLock { $0.statistics?.extendedHighestSequence } ?? 0
            let first = UInt16(truncatingIfNeeded: highest &+ 100)
            for i in 0..<200 {
                // Payload descriptor (S), key frame tag (show, first partition 100 bytes), start
                // code, width and height 16383 with no scaling, then filler.
                let header: [UInt8] = [0x10, 0x90, 0x0C, 0x00, 0x9D, 0x01, 0x2A, 0xFF, 0x3F, 0xFF, 0x3F]
                peer.sendRTP(
                    HostilePeer.rtp(
                        payloadType: 96,
                        sequence: first &+ UInt16(i),
                        timestamp: UInt32(i) * 3000,
                        ssrc: 0x7000_0001,
                        payload: header + [UInt8](repeating: 0xA5, count: 400)
                    )
                )
                if i % 20 == 19 { try await Task.sleep(for: .milliseconds(20)) }
            }
            return 200
        }
        #expect(stats["limitHits.frameSize"]?.number ?? 0 >= 1)
    }
}
