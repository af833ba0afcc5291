import SwiftRTCCore
import SwiftRTCRTP

/// The one registration of each codec's pipelines.
extension EncodedFrame.Codec {
    /// The send side of this codec for a new ``SendPipeline``, continuing the stream where
    /// the sender's last pipeline left it.
    func makeEncoderPipeline(
        ssrc: UInt32,
        payloadType: UInt8,
        continuity: RTPSender.Continuity
    ) -> any EncoderPipeline {
        switch self {
        case .opus: OpusEncoderPipeline(ssrc: ssrc, payloadType: payloadType, continuity: continuity)
        case .vp8: VP8EncoderPipeline(ssrc: ssrc, payloadType: payloadType, continuity: continuity)
        }
    }

    /// The receive side of this codec.
    func makeDecoderPipeline(_ parameters: RTPReceiver.Parameters) -> any DecoderPipeline {
        switch self {
        case .opus: OpusDecoderPipeline()
        case .vp8: VP8DecoderPipeline(maximumPixels: parameters.maximumDecodedPixels)
        }
    }
}
