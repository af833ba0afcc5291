import SwiftRTCRTP
import SwiftRTCSDP

extension PeerConnection {
    /// Loss recovery as a section's negotiation allows it, for sending and for receiving:
    /// NACK and `nack pli` / `ccm fir` from the codec's `a=rtcp-fb`, RTX from an `rtx` codec
    /// whose `apt=` is the codec's, Opus in-band FEC from the remote side's `useinbandfec=1`.
    static func recovery(
        codec: RtpCodec,
        media: Negotiation.NegotiatedMedia,
        remoteSection: MediaDescription?,
        localSSRC: UInt32
    ) -> (send: SendRecoveryParameters, receive: RecoveryParameters) {
        let feedback = Set(codec.feedback)
        let nack = feedback.contains(RtcpFeedback("nack"))
        let rtx = nack ? media.codecs.first(where: { $0.associatedPayloadType == codec.payloadType })?.payloadType : nil
        let fec =
            codec.encodingName == "opus"
            && remoteSection?.attributes.codec(codec.payloadType)?.parameters["useinbandfec"] == "1"
        let send = SendRecoveryParameters(nack: nack, rtxPayloadType: rtx, inbandFEC: fec)
        let receive = RecoveryParameters(
            nack: nack,
            pli: feedback.contains(RtcpFeedback("nack", "pli")),
            fir: feedback.contains(RtcpFeedback("ccm", "fir")),
            rtxPayloadType: rtx,
            localSSRC: localSSRC,
            inbandFEC: fec
        )
        return (send, receive)
    }

}
