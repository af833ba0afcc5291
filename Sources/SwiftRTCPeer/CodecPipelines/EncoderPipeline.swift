import SwiftRTCCore
import SwiftRTCMedia

/// One codec's send side, owned by a sender's ``SendPipeline``: takes the track's frames
/// (raw, to encode, or already encoded in this codec, passed through), and writes their RTP
/// packets into the pipeline's slots with ``SendPipeline/writeExtensions(_:)``.
///
/// A codec adds its pipeline in a file of its own and registers it in
/// ``EncodedFrame/Codec/makeEncoderPipeline(ssrc:payloadType:continuity:)``.
protocol EncoderPipeline: AnyObject {
    /// Sends one frame (frames of another kind or codec are ignored): returns how many
    /// packets it wrote into slots `0..<n` for the pipeline to send (paced, for video), or
    /// 0 when it sent each as it wrote it (``SendPipeline/transmit(slots:)``; audio: a frame is
    /// one packet).
    func send(_ frame: MediaFrame, enabled: Bool, through pipeline: SendPipeline) -> Int
}
