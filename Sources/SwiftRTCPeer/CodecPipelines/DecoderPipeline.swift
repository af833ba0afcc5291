import SwiftRTCCore
import SwiftRTCRTP

/// One codec's receive side: decodes a receiver's frames into its remote track, counting
/// into its decoding stats, until the frames end (a new negotiation, or the receiver stops).
///
/// A codec adds its pipeline in a file of its own and registers it in
/// ``EncodedFrame/Codec/makeDecoderPipeline(_:)``.
protocol DecoderPipeline: Sendable {
    func decode(_ frames: AsyncStream<EncodedFrame>, for receiver: RTPReceiver) async
}
