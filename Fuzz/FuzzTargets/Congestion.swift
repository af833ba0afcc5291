import SwiftRTCCongestion
import SwiftRTCCore
import SwiftRTCRTP
import SwiftRTCReceive

/// RTCP from a peer into the send side's congestion control and loss recovery, as
/// `PeerTransport` dispatches it (`CongestionController` is internal to SwiftRTCPeer, so its
/// public parts are driven here the same way): transport-cc feedback into the
/// `SendSideBandwidthEstimator` after the packets it reports on were recorded as sent, REMB,
/// report blocks' fraction lost and round trip (LSR/DLSR), NACKs into a `NackResponder`
/// holding what was sent; the estimate into `BitrateAllocation` and `PacingBudget`.
///
/// Input: 8 header bytes (audio and video caps in kbit/s, as from `b=AS`, clamped as the peer
/// connection clamps them), then steps of
/// `[milliseconds since the last step: u8][packets sent: u8][RTCP length: u16][RTCP datagram]`.
/// The packets "sent" also arrive at a `TransportFeedbackRecorder` (the receive side), whose
/// own feedback must write and parse back as it was made.
///
/// Checks: the target stays within the estimator's bounds, every resent packet parses as RTP
/// (RTX of the one asked for), and the feedback we make round-trips.
public func fuzzCongestion(_ bytes: UnsafeRawBufferPointer) {
    var input = FuzzInput(bytes)
    let audioCap = Int(input.u16()), videoCap = Int(input.u32() >> 8)
    let transportSSRC = UInt32(input.u8())
    var estimator = SendSideBandwidthEstimator()
    // As CongestionController.configure: caps within 1...maxBitrate, their sum the maximum.
    let caps = (
        audio: audioCap == 0 ? nil : min(audioCap * 1000, RemoteInputLimits.maxBitrate),
        video: videoCap == 0 ? nil : min(videoCap * 1000, RemoteInputLimits.maxBitrate)
    )
    estimator.maximumBitrate =
        caps.video == nil
        ? SendSideBandwidthEstimator.defaultMaximumBitrate + 32_000
        : (caps.audio ?? 32_000) + (caps.video ?? SendSideBandwidthEstimator.defaultMaximumBitrate)
    let responder = NackResponder(
        rtx: transportSSRC & 1 == 0 ? NackResponder.RTX(payloadType: 97, ssrc: 0x2222) : nil,
        capacity: 128
    )
    var recorder = TransportFeedbackRecorder()
    var pacing = PacingBudget()
    var interval = FeedbackInterval()
    var now: Int64 = 1_000_000  // µs
    var transportSequence: UInt16 = 0xFFF0  // wraps early
    var mediaSequence: UInt16 = 0xFFC0
    var packet = [UInt8](repeating: 0, count: 1200)
    var scratch = [UInt8](repeating: 0, count: 1500)
    let payload = [UInt8](repeating: 0xA5, count: 1200)

    while !input.isAtEnd {
        now += Int64(input.u8()) * 1000
        let sent = Int(input.u8() % 64)
        let rtcp = input.chunk()
        let seconds = Double(now) / 1e6
        // Packets go out: recorded by the estimator and kept for NACKs; the peer receives them
        // (the odd ones 1 ms late, every fifth lost) and its recorder makes feedback.
        for i in 0..<sent {
            let size = 200 + (i * 97) % 1000
            estimator.packetSent(sequenceNumber: transportSequence, size: size, sendTime: now)
            let written = packet.withUnsafeMutableBytes { buffer -> Int? in
                guard
                    var writer = try? RTPPacketWriter(
                        into: buffer,
                        header: RTPHeader(
                            marker: i == sent - 1,
                            payloadType: 96,
                            sequenceNumber: mediaSequence,
                            timestamp: UInt32(truncatingIfNeeded: now / 11),
                            ssrc: 0x1111
                        )
                    )
                else { return nil }
                guard
                    (payload.withUnsafeBytes {
                        try? writer.appendPayload(UnsafeRawBufferPointer(rebasing: $0[0..<size - 12]))
                    }) != nil
                else { return nil }
                return try? writer.finish()
            }
            if let written {
                packet.withUnsafeBytes {
                    responder.store(UnsafeRawBufferPointer(rebasing: $0[..<written]), at: seconds)
                }
            }
            if i % 5 != 4 {
                recorder.record(sequenceNumber: transportSequence, arrival: now + 20_000 + Int64(i % 2) * 1000)
            }
            transportSequence &+= 1
            mediaSequence &+= 1
            pacing.sent(bytes: size, now: now)
        }
        interval.received(bytes: rtcp.count, at: seconds)
        if interval.due(now: seconds) {
            while let feedback = recorder.makeFeedback(senderSSRC: 0x3333, mediaSSRC: 0x1111) {
                roundTrip(.transportFeedback(feedback))
            }
        }
        // The peer's RTCP, packet by packet as PeerTransport.receiveRTCP takes it.
        var iterator = RTCPCompoundIterator(rtcp)
        while let view = try? iterator.next() {
            guard let parsed = try? RTCPPacket(view) else { continue }
            switch parsed {
            case .transportFeedback(let feedback):
                estimator.received(feedback, now: now)
            case .remb(let remb):
                estimator.receivedREMB(bitrate: remb.bitrate)
            case .senderReport(let report):
                handle(report.reports, estimator: &estimator, now: now)
            case .receiverReport(let report):
                handle(report.reports, estimator: &estimator, now: now)
            case .nack(let nack):
                let rtt = Double(estimator.roundTripTime) / 1e6
                responder.respond(to: nack.lost, now: seconds, roundTripTime: rtt, bitrate: estimator.targetBitrate) {
                    buffer,
                    length in
                    guard let resent = try? RTPPacket(parsing: UnsafeRawBufferPointer(rebasing: buffer[..<length]))
                    else {
                        fatalError("NackResponder resent a packet that does not parse")
                    }
                    if let rtx = responder.rtx, resent.payloadType != rtx.payloadType || resent.ssrc != rtx.ssrc {
                        fatalError("NackResponder resent a packet that is not RTX")
                    }
                    scratch.withUnsafeMutableBytes { out in
                        _ = try? RTXPacket.unwrap(resent, originalPayloadType: 96, originalSSRC: 0x1111, into: out)
                    }
                    return true
                }
            default:
                roundTrip(parsed)
            }
        }
        let target = estimator.targetBitrate
        guard target >= estimator.minimumBitrate, target <= max(estimator.minimumBitrate, estimator.maximumBitrate)
        else {
            fatalError("target \(target) outside \(estimator.minimumBitrate)...\(estimator.maximumBitrate)")
        }
        let shares = BitrateAllocation(target: target, audioBitrate: 32_000, audioCap: caps.audio, videoCap: caps.video)
        _ = BitrateAllocation.frameRate(bitrate: shares.video, width: 640, height: 480, maximum: 30)
        pacing.startFrame(bytes: sent * 600, targetBitrate: shares.video, now: now)
        _ = pacing.wait(now: now)
    }
}

/// Report blocks as PeerTransport handles them: the round trip from LSR and DLSR (up to
/// `maxRoundTripTime`), the fraction lost.
private func handle(_ blocks: [ReceptionReport], estimator: inout SendSideBandwidthEstimator, now: Int64) {
    let ntpNow = UInt32(truncatingIfNeeded: now * 65536 / 1_000_000)
    for block in blocks {
        if block.lastSenderReport != 0 {
            let seconds = Double(ntpNow &- block.lastSenderReport &- block.delaySinceLastSenderReport) / 65536
            if seconds <= RemoteInputLimits.maxRoundTripTime { estimator.roundTripTime = Int64(seconds * 1e6) }
        }
        estimator.receivedLossReport(fractionLost: Double(block.fractionLost) / 256, now: now)
    }
}

/// A packet written must parse back to itself (REMB: a rounded bitrate; texts: cut).
private func roundTrip(_ packet: RTCPPacket) {
    var out = [UInt8](repeating: 0, count: packet.encodedLength)
    let length = out.withUnsafeMutableBytes { try? packet.write(into: $0) }
    guard let length else { return }
    let again = out.withUnsafeBytes { try? RTCPPacket.parseCompound(UnsafeRawBufferPointer(rebasing: $0[..<length])) }
    guard let again, again.count == 1 else { fatalError("\(packet.name) we wrote does not parse back") }
    switch (packet, again[0]) {
    case (.transportFeedback, .transportFeedback), (.nack, .nack):
        if again[0] != packet { fatalError("\(packet.name) we wrote parses back different: \(packet) -> \(again[0])") }
    default:
        break
    }
}
