import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCRTP

/// Opus on the send side: raw audio of any length (frames of an Opus length straight to the
/// encoder, others cut into 20 ms frames), or Opus frames passed through; each encoded frame
/// is one RTP packet (RFC 7587), sent at once, with the audio level extension when
/// negotiated. The encoder follows the congestion controller's share for audio and spends
/// in-band FEC on the loss the peer reports.
final class OpusEncoderPipeline: EncoderPipeline {
    private var opus: OpusEncoder?
    private var packetizer: OpusPacketizer
    private var audioSamples: UInt64 = 0
    /// Raw audio pushed in lengths Opus does not take, cut into 20 ms frames.
    private var chunker = AudioChunker()

    init(ssrc: UInt32, payloadType: UInt8, continuity: RTPSender.Continuity) {
        packetizer = OpusPacketizer(ssrc: ssrc, payloadType: payloadType, sequenceNumber: continuity.sequenceNumber)
    }

    func send(_ frame: MediaFrame, enabled: Bool, through pipeline: SendPipeline) -> Int {
        switch frame {
        case .audio(let audio):
            guard (1...2).contains(audio.channels), audio.samples.count % audio.channels == 0 else {
                pipeline.sender.counters.withLock { $0.audioFramesRejected += 1 }
                return 0
            }
            if !chunker.hasPartialFrame, OpusEncoder.frameSizes.contains(audio.samplesPerChannel) {
                encode(audio, enabled: enabled, through: pipeline)
            } else {
                audio.samples.withUnsafeBufferPointer { samples in
                    chunker.append(samples, channels: audio.channels) {
                        encode($0, enabled: enabled, through: pipeline)
                    }
                }
            }
        case .encoded(var encoded) where encoded.codec == .opus:
            encoded.timestamp = pipeline.rtpTimestamp(for: UInt64(encoded.timestamp))
            pipeline.countCaptured(encoded)
            send(encoded, level: nil, through: pipeline)
        default:
            break  // not audio, or another codec
        }
        return 0
    }

    /// One raw audio frame of an Opus length: encoded (silence when disabled) and sent.
    private func encode(_ frame: AudioFrame, enabled: Bool, through pipeline: SendPipeline) {
        var audio = frame
        if !enabled { audio.samples = [Int16](repeating: 0, count: audio.samples.count) }
        let sender = pipeline.sender
        sender.counters.withLock {
            $0.framesCaptured += 1
            $0.audioLevel = AudioLevelMeter.rms(of: audio)
        }
        let bitrate = min(max(pipeline.transport.congestion.targetBitrate(for: .audio), 6_000), 510_000)
        if opus == nil || opus?.configuration.channels != audio.channels {
            opus = try? OpusEncoder(
                configuration: OpusEncoderConfiguration(
                    channels: audio.channels,
                    bitrate: bitrate,
                    inbandFEC: pipeline.parameters.recovery.inbandFEC
                )
            )
        } else if let current = opus, current.configuration.bitrate != bitrate {
            var configuration = current.configuration
            configuration.bitrate = bitrate
            try? current.apply(configuration)
        }
        guard let opus else { return }
        adaptToLoss(opus, pipeline: pipeline)
        let start = ContinuousClock.now
        guard var encoded = try? opus.encode(audio) else { return }
        let elapsed = ContinuousClock.now - start
        encoded.timestamp = pipeline.timestampBase &+ UInt32(truncatingIfNeeded: audioSamples)
        audioSamples += UInt64(audio.samplesPerChannel)
        let level = AudioLevelMeter.audioLevel(of: audio)
        sender.counters.withLock {
            $0.framesEncoded += 1
            $0.totalEncodeTime += elapsed.seconds
            $0.targetBitrate = opus.configuration.bitrate
        }
        send(encoded, level: level, through: pipeline)
    }

    /// One Opus frame as one packet, sent at once.
    private func send(_ frame: EncodedFrame, level: UInt8?, through pipeline: SendPipeline) {
        let levelID = pipeline.parameters.extensions.audioLevel
        let buffer = pipeline.slot(0)
        var header = 12
        let length: Int? = frame.data.withUnsafeBytes { payload in
            try? packetizer.packetize(payload, timestamp: frame.timestamp, into: buffer) {
                (writer: inout RTPPacketWriter) throws(RTPError) in
                try pipeline.writeExtensions(&writer)
                if let levelID, let level {
                    try writer.appendExtension(AudioLevel(voiceActivity: level < 127, level: level), id: levelID)
                }
                header = writer.headerLength
            }
        }
        guard let length else { return }
        pipeline.written(slot: 0, length: length, header: header, timestamp: frame.timestamp)
        let next = packetizer.sequenceNumber
        pipeline.frameWritten(bytes: frame.data.count) {
            $0.sequenceNumber = next
            $0.nextTimestamp = frame.timestamp &+ 960
        }
        pipeline.transmit(slots: 0..<1)
    }

    /// Tells the Opus encoder the loss the peer reports, so that its in-band FEC spends what
    /// the loss needs (libwebrtc's audio network adaptor does the same): the last report's
    /// fraction lost, or the loss over the whole call if higher (one quiet second between
    /// reports does not switch FEC off).
    private func adaptToLoss(_ opus: OpusEncoder, pipeline: SendPipeline) {
        guard pipeline.parameters.recovery.inbandFEC else { return }
        let fraction = pipeline.sender.counters.withLock { c in
            max(
                c.remoteFractionLost,
                c.packetsSent > 0 ? Double(max(0, c.remotePacketsLost)) / Double(c.packetsSent) : 0
            )
        }
        let percent = min(50, Int((fraction * 100).rounded()))
        guard percent != opus.configuration.expectedPacketLoss else { return }
        var configuration = opus.configuration
        configuration.expectedPacketLoss = percent
        try? opus.apply(configuration)
    }
}
