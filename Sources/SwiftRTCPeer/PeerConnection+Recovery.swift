import SwiftRTCRTP
import SwiftRTCSDP

extension PeerConnection {
    /// How often receive-side feedback (NACK, PLI/FIR) and jitter-buffer releases run.
    static let feedbackTick = Duration.milliseconds(10)

    /// Loss recovery as a section's negotiation allows it, for sending and for receiving:
    /// NACK and `nack pli` / `ccm fir` from the codec's `a=rtcp-fb`, RTX from an `rtx` codec
    /// whose `apt=` is the codec's, Opus in-band FEC from the remote side's `useinbandfec=1`.
    static func recovery(codec: RtpCodec, media: Negotiation.NegotiatedMedia, remoteSection: MediaDescription?,
                         localSSRC: UInt32) -> (send: SendRecoveryParameters, receive: RecoveryParameters) {
        let feedback = Set(codec.feedback)
        let nack = feedback.contains(RtcpFeedback("nack"))
        let rtx = nack ? media.codecs.first(where: { $0.associatedPayloadType == codec.payloadType })?.payloadType : nil
        let fec = codec.encodingName == "opus"
            && remoteSection?.attributes.codec(codec.payloadType)?.parameters["useinbandfec"] == "1"
        let send = SendRecoveryParameters(nack: nack, rtxPayloadType: rtx, inbandFEC: fec)
        let receive = RecoveryParameters(nack: nack, pli: feedback.contains(RtcpFeedback("nack", "pli")),
                                         fir: feedback.contains(RtcpFeedback("ccm", "fir")), rtxPayloadType: rtx,
                                         localSSRC: localSSRC, inbandFEC: fec)
        return (send, receive)
    }

    /// The feedback task: every 10 ms each receiver releases the frames due for playout and
    /// says what feedback is due (NACKs for missing packets, PLI or FIR when its decoder needs
    /// a keyframe), which goes out as one reduced-size RTCP packet (RFC 5506) per receiver.
    func runFeedback() async {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
        defer { buffer.deallocate() }
        while !Task.isCancelled, !isClosed {
            // Until media can flow there is nothing to do: look again less often.
            try? await Task.sleep(for: dtlsState == .connected ? Self.feedbackTick : Self.reportTick)
            guard let transport, dtlsState == .connected else { continue }
            let now = NTPTime.monotonicSeconds()
            let roundTripTime = transport.counterValues.lastRoundTripTime
            for transceiver in transceiverList {
                let packets = transceiver.receiver.feedback(now: now, roundTripTime: roundTripTime)
                guard !packets.isEmpty, let length = try? RTCPPacket.writeCompound(packets, into: buffer) else { continue }
                _ = transport.sendRTCP(buffer, length: length)
            }
        }
    }

    /// Tests only: `drop` sees each received SRTP datagram (RTP header in the clear) before
    /// SRTP does and returns true to lose it, as a lossy network would.
    func setIncomingDrop(_ drop: (@Sendable (UnsafeRawBufferPointer) -> Bool)?) {
        transport?.incomingDrop.withLock { $0 = drop }
    }
}
