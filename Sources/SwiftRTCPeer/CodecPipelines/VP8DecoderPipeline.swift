import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCRTP

/// VP8 on the receive side: each frame decoded into one reused picture; a frame lost before
/// the decoder, or one it cannot decode, makes it wait for a keyframe (asked for with a PLI).
/// Pictures larger than `maximumPixels` are refused (counted as too large).
struct VP8DecoderPipeline: DecoderPipeline {
    var maximumPixels: Int

    func decode(_ frames: AsyncStream<EncodedFrame>, for receiver: RTPReceiver) async {
        guard let decoder = try? VP8Decoder(maximumPixels: maximumPixels) else { return }
        let track = receiver.track
        var picture = VideoFrame(width: 2, height: 2)
        var lostSeen = receiver.framesLostBeforeDecoding.load(ordering: .relaxed)
        for await frame in frames {
            let lost = receiver.framesLostBeforeDecoding.load(ordering: .relaxed)
            if lost != lostSeen {
                lostSeen = lost
                decoder.frameLost()
            }
            let start = ContinuousClock.now
            let decoded: Bool
            var tooLarge = false
            do { decoded = try decoder.decode(frame, into: &picture) } catch {
                decoded = false
                if case .frameTooLarge = error { tooLarge = true }
            }
            let elapsed = ContinuousClock.now - start
            guard decoded else {
                receiver.decoding.withLock {
                    $0.framesDropped += 1
                    if tooLarge { $0.framesTooLarge += 1 }
                }
                if decoder.needsKeyframe { receiver.keyframeNeeded.store(true, ordering: .relaxed) }
                continue
            }
            if frame.isKeyframe { receiver.keyframeNeeded.store(false, ordering: .relaxed) }
            let now = NTPTime.monotonicSeconds()
            receiver.decoding.withLock {
                $0.framesDecoded += 1
                $0.freezes.decoded(at: now)
                if frame.isKeyframe { $0.keyFramesDecoded += 1 }
                $0.totalDecodeTime += elapsed.seconds
                $0.frameWidth = picture.width
                $0.frameHeight = picture.height
            }
            track.push(.video(picture))
        }
    }
}
