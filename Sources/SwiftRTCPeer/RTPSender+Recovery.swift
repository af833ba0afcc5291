import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCRTP
import SwiftRTCReceive

/// What the negotiation allows a sender for loss recovery.
struct SendRecoveryParameters: Sendable, Hashable {
    /// The peer asks for lost packets (`a=rtcp-fb:<pt> nack`): keep a history and answer.
    var nack = false
    /// Resend as RTX with this payload type on the sender's RTX SSRC; nil resends the
    /// original packets.
    var rtxPayloadType: UInt8?
    /// The peer decodes Opus in-band FEC (`useinbandfec=1`).
    var inbandFEC = false
}

extension RTPSender {
    /// Sets up (or keeps, for the same RTX setup) the history that answers NACKs.
    func configureRetransmissions(_ parameters: Parameters) {
        let recovery = parameters.recovery
        // A simulcast encoding's RTX carries its rid as a repaired rid (RFC 8852 §3.2); without
        // that extension the originals are resent, as an RTX SSRC with the rid would be taken
        // for the encoding itself.
        let ids = parameters.extensions
        let ridExtensions = ids.rid.flatMap { rid in ids.repairedRid.map { (streamID: rid, repairedStreamID: $0) } }
        let rtx: NackResponder.RTX? = recovery.rtxPayloadType.flatMap { pt in
            rtxSsrc.flatMap { ssrc in
                guard parameters.rid != nil else { return NackResponder.RTX(payloadType: pt, ssrc: ssrc) }
                return ridExtensions.map { NackResponder.RTX(payloadType: pt, ssrc: ssrc, ridExtensions: $0) }
            }
        }
        let refused: Int? = retransmissions.withLock { responder in
            let refused = responder?.refused
            guard recovery.nack else {
                responder = nil
                return refused
            }
            if let existing = responder, existing.rtx == rtx { return nil }
            responder = NackResponder(rtx: rtx)
            return refused
        }
        // A new responder counts from 0: keep what the old one refused.
        if let refused { counters.withLock { $0.nackResendsRefusedBefore += Int64(refused) } }
    }

    /// A NACK from the peer (transport thread): resends what it asks for that is still kept,
    /// as RTX or as the original packets, within the resend budget (the stream's target
    /// bitrate, at least ``RemoteInputLimits/minResendBitrate``; see ``NackResponder``).
    func receivedNACK(_ nack: GenericNACK, transport: PeerTransport, now: Double) {
        let roundTripTime = counters.withLock {
            $0.nackReceived += 1
            return $0.remoteRoundTripTime
        }
        let bitrate = transport.congestion.targetBitrate(for: kind)
        let totals: (packets: Int, bytes: Int, refused: Int)? = retransmissions.withLock { responder in
            guard let responder else { return nil }
            responder.respond(to: nack.lost, now: now, roundTripTime: roundTripTime, bitrate: bitrate) {
                buffer,
                length in
                transport.sendRTP(buffer, length: length)
            }
            return (responder.retransmittedPackets, responder.retransmittedBytes, responder.refused)
        }
        if let totals {
            counters.withLock {
                $0.retransmittedPacketsSent = Int64(totals.packets)
                $0.retransmittedBytesSent = Int64(totals.bytes)
                $0.nackResendsRefused = $0.nackResendsRefusedBefore + Int64(totals.refused)
            }
        }
    }

    /// A PLI (`fir`: nil) or FIR (its command sequence number) for this sender: the encoder
    /// makes its next frame a keyframe. A FIR repeating the last sequence number is the same
    /// request sent again (RFC 5104 §4.3.1.2) and is only counted. At most one request per
    /// ``RemoteInputLimits/minKeyframeRequestInterval`` is acted on at once (a peer's PLI
    /// flood would make every frame a keyframe); one that comes within it is counted and
    /// served when the interval ends (``takeKeyframeRequest(now:)``), so the last request is
    /// never lost: an SFU switching a subscriber to another simulcast layer asks once and
    /// waits for that keyframe. `now`: monotonic seconds.
    func receivedKeyframeRequest(fir sequence: UInt8?, now: Double = NTPTime.monotonicSeconds()) {
        if let sequence, lastFIRSequence.exchange(Int(sequence), ordering: .relaxed) == Int(sequence) {
            counters.withLock { $0.firReceived += 1 }
            return
        }
        let served: Bool = counters.withLock {
            if sequence == nil { $0.pliReceived += 1 } else { $0.firReceived += 1 }
            if let last = $0.lastKeyframeRequestServed, now - last < RemoteInputLimits.minKeyframeRequestInterval,
                now >= last
            {
                $0.keyframeRequestsIgnored += 1
                return false
            }
            $0.lastKeyframeRequestServed = now
            return true
        }
        if served {
            keyframeDeferred.store(false, ordering: .relaxed)
            keyframeRequested.store(true, ordering: .relaxed)
        } else {
            keyframeDeferred.store(true, ordering: .relaxed)
        }
    }

    /// Whether the encoder's next frame is to be a keyframe (the encoding side asks once per
    /// frame): a request acted on, or one deferred whose interval has ended. `now`: monotonic
    /// seconds.
    func takeKeyframeRequest(now: Double = NTPTime.monotonicSeconds()) -> Bool {
        if keyframeRequested.exchange(false, ordering: .relaxed) { return true }
        guard keyframeDeferred.load(ordering: .relaxed) else { return false }
        let due: Bool = counters.withLock {
            guard let last = $0.lastKeyframeRequestServed,
                now - last < RemoteInputLimits.minKeyframeRequestInterval, now >= last
            else {
                $0.lastKeyframeRequestServed = now
                return true
            }
            return false
        }
        return due && keyframeDeferred.exchange(false, ordering: .relaxed)
    }

    /// How often this sender hit one of ``RemoteInputLimits`` (for `limitHits.<name>` in
    /// the stats), zeros left out: NACKed packets refused by the resend budget, keyframe
    /// requests ignored by their rate limit.
    var limitHits: [(limit: RemoteInputLimit, count: Int64)] {
        let c = counters.withLock { $0 }
        return [
            (RemoteInputLimit.nackResendBudget, c.nackResendsRefused),
            (.keyframeRequestRate, c.keyframeRequestsIgnored),
        ]
        .filter { $0.1 > 0 }.map { (limit: $0.0, count: $0.1) }
    }
}

extension SendPipeline {
    /// Keeps a packet about to be sent for answering NACKs (before SRTP protects it in place).
    func remember(slot index: Int, length: Int, at now: Double) {
        // The slot belongs to this pipeline; the history copies the bytes under its lock.
        let bytes = UnsafeRawBufferPointer(rebasing: slot(index)[..<length])
        sender.retransmissions.withLock { $0?.store(bytes, at: now) }
    }
}
