import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCRTP

/// VP8 on the send side: raw pictures encoded at the congestion controller's share for video
/// (``VideoRateControl``; black when the track is disabled), or VP8 frames passed through;
/// each frame split into RTP packets of at most ``SendPipeline/mtu`` bytes (RFC 7741) for the
/// pipeline to pace. A PLI or FIR makes the next frame a keyframe.
final class VP8EncoderPipeline: EncoderPipeline {
    private var vp8: VP8Encoder?
    private var packetizer: VP8Packetizer
    private var black: VideoFrame?
    private var rate = VideoRateControl()

    init(ssrc: UInt32, payloadType: UInt8, continuity: RTPSender.Continuity) {
        packetizer = VP8Packetizer(
            ssrc: ssrc,
            payloadType: payloadType,
            sequenceNumber: continuity.sequenceNumber,
            pictureID: continuity.pictureID,
            mtu: SendPipeline.mtu
        )
    }

    func send(_ frame: MediaFrame, enabled: Bool, through pipeline: SendPipeline) -> Int {
        switch frame {
        case .video(let video):
            guard let encoded = encode(video, enabled: enabled, through: pipeline) else { return 0 }
            return packetize(encoded, through: pipeline)
        case .encoded(var encoded) where encoded.codec == .vp8:
            encoded.timestamp = pipeline.rtpTimestamp(for: UInt64(encoded.timestamp))
            pipeline.countCaptured(encoded)
            return packetize(encoded, through: pipeline)
        default:
            return 0  // not video, or another codec
        }
    }

    /// One raw picture: rate control, then encoding (nil: skipped, or the encoder failed).
    private func encode(_ video: VideoFrame, enabled: Bool, through pipeline: SendPipeline) -> EncodedFrame? {
        var picture = video
        if !enabled {
            if black?.width != video.width || black?.height != video.height {
                black = VideoFrame(width: video.width, height: video.height)
            }
            black?.timestamp = video.timestamp
            picture = black ?? video
        }
        let sender = pipeline.sender
        sender.counters.withLock {
            $0.framesCaptured += 1
            $0.captureWidth = video.width
            $0.captureHeight = video.height
        }
        let target = pipeline.targetBitrate
        // The encoder runs at the configured size, or the frame's: a source of another size
        // (a screen share after the camera) starts it over there, with a keyframe, rather than
        // being scaled to the first frame's size. A simulcast encoding divides it by its scale.
        let size = Self.scaled(
            pipeline.parameters.videoSize ?? VideoSize(width: video.width, height: video.height),
            by: pipeline.parameters.videoScale
        )
        if vp8 == nil || vp8?.configuration.width != size.width || vp8?.configuration.height != size.height {
            vp8 = try? VP8Encoder(
                configuration: VP8EncoderConfiguration(
                    width: size.width,
                    height: size.height,
                    targetBitrate: VideoRateControl.encoderBitrate(target),
                    temporalLayers: pipeline.parameters.temporalLayers
                )
            )
        }
        guard let vp8 else { return nil }
        // The estimate sets the encoder's bitrate and frame rate; frames above the rate are skipped.
        guard rate.admit(video, target: target, encoder: vp8, maximumFrameRate: pipeline.parameters.maxFrameRate)
        else { return nil }
        if sender.takeKeyframeRequest() { vp8.requestKeyframe() }
        let start = ContinuousClock.now
        guard var encoded = try? vp8.encode(picture) else { return nil }
        let elapsed = ContinuousClock.now - start
        encoded.timestamp = pipeline.rtpTimestamp(for: video.timestamp)
        sender.counters.withLock {
            $0.framesEncoded += 1
            if encoded.isKeyframe { $0.keyFramesEncoded += 1 }
            $0.totalEncodeTime += elapsed.seconds
            $0.qpAverage = vp8.averageQP
            $0.frameWidth = vp8.configuration.width
            $0.frameHeight = vp8.configuration.height
            $0.targetBitrate = vp8.configuration.targetBitrate
        }
        return encoded
    }

    /// `size` with each side divided by `scale`, kept even (VP8 takes 4:2:0 pictures) and at
    /// least 2.
    static func scaled(_ size: VideoSize, by scale: Double) -> VideoSize {
        guard scale > 1 else { return size }
        func side(_ length: Int) -> Int { max(2, Int((Double(length) / scale).rounded(.down)) & ~1) }
        return VideoSize(width: side(size.width), height: side(size.height))
    }

    /// The frame's packets, each copied into its own slot from the last, where the packetizer
    /// writes. Returns their number.
    private func packetize(_ frame: EncodedFrame, through pipeline: SendPipeline) -> Int {
        let scratch = pipeline.slot(pipeline.slotCount - 1)
        var count = 0, header = 12
        _ = frame.data.withUnsafeBytes { payload in
            try? packetizer.packetize(
                payload,
                timestamp: frame.timestamp,
                temporalLayer: frame.temporalLayer,
                into: scratch
            ) {
                (writer: inout RTPPacketWriter) throws(RTPError) in
                try pipeline.writeExtensions(&writer)
                header = writer.headerLength
            } emit: { (packet: UnsafeRawBufferPointer) throws(RTPError) in
                guard count < pipeline.slotCount - 1 else { return }
                UnsafeMutableRawBufferPointer(rebasing: pipeline.slot(count)[..<packet.count]).copyMemory(from: packet)
                pipeline.written(slot: count, length: packet.count, header: header, timestamp: frame.timestamp)
                count += 1
            }
        }
        let (next, picture) = (packetizer.sequenceNumber, packetizer.pictureID)
        pipeline.frameWritten(bytes: frame.data.count) {
            $0.sequenceNumber = next
            $0.pictureID = picture
            $0.nextTimestamp = frame.timestamp &+ 3000
        }
        return count
    }
}
