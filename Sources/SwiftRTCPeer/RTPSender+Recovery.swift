import SwiftRTCCodecs
import SwiftRTCRTP

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
        let rtx: NackResponder.RTX? = recovery.rtxPayloadType.flatMap { pt in rtxSsrc.map { NackResponder.RTX(payloadType: pt, ssrc: $0) } }
        retransmissions.withLock { responder in
            guard recovery.nack else { responder = nil; return }
            if let existing = responder, existing.rtx == rtx { return }
            responder = NackResponder(rtx: rtx)
        }
    }

    /// A NACK from the peer (transport thread): resends what it asks for that is still kept,
    /// as RTX or as the original packets.
    func receivedNACK(_ nack: GenericNACK, transport: PeerTransport, now: Double) {
        let roundTripTime = counters.withLock {
            $0.nackReceived += 1
            return $0.remoteRoundTripTime
        }
        let totals: (packets: Int, bytes: Int)? = retransmissions.withLock { responder in
            guard let responder else { return nil }
            responder.respond(to: nack.lost, now: now, roundTripTime: roundTripTime) { buffer, length in
                transport.sendRTP(buffer, length: length)
            }
            return (responder.retransmittedPackets, responder.retransmittedBytes)
        }
        if let totals {
            counters.withLock {
                $0.retransmittedPacketsSent = Int64(totals.packets)
                $0.retransmittedBytesSent = Int64(totals.bytes)
            }
        }
    }

    /// A PLI (`fir`: nil) or FIR (its command sequence number) for this sender: the encoder
    /// makes its next frame a keyframe. A FIR repeating the last sequence number is the same
    /// request sent again (RFC 5104 §4.3.1.2) and is only counted.
    func receivedKeyframeRequest(fir sequence: UInt8?) {
        counters.withLock {
            if sequence == nil { $0.pliReceived += 1 } else { $0.firReceived += 1 }
        }
        if let sequence, lastFIRSequence.exchange(Int(sequence), ordering: .relaxed) == Int(sequence) { return }
        keyframeRequested.store(true, ordering: .relaxed)
    }
}

extension SendPipeline {
    /// Keeps a packet about to be sent for answering NACKs (before SRTP protects it in place).
    func remember(slot index: Int, length: Int, at now: Double) {
        // The slot belongs to this pipeline; the history copies the bytes under its lock.
        let bytes = UnsafeRawBufferPointer(rebasing: slot(index)[..<length])
        sender.retransmissions.withLock { $0?.store(bytes, at: now) }
    }

    /// Tells the Opus encoder the loss the peer reports, so that its in-band FEC spends what
    /// the loss needs (libwebrtc's audio network adaptor does the same): the last report's
    /// fraction lost, or the loss over the whole call if higher (one quiet second between
    /// reports does not switch FEC off).
    func adaptToLoss(_ opus: OpusEncoder) {
        guard parameters.recovery.inbandFEC else { return }
        let fraction = sender.counters.withLock { c in
            max(c.remoteFractionLost, c.packetsSent > 0 ? Double(max(0, c.remotePacketsLost)) / Double(c.packetsSent) : 0)
        }
        let percent = min(50, Int((fraction * 100).rounded()))
        guard percent != opus.configuration.expectedPacketLoss else { return }
        var configuration = opus.configuration
        configuration.expectedPacketLoss = percent
        try? opus.apply(configuration)
    }
}
