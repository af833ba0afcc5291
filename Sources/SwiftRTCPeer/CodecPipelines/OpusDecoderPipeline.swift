import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCRTP

/// Opus on the receive side: each frame decoded; a gap in RTP time is lost packets, the last
/// of them recovered from the next packet's in-band FEC when it carries some, the others
/// concealed (at most 100 ms of them).
struct OpusDecoderPipeline: DecoderPipeline {
    func decode(_ frames: AsyncStream<EncodedFrame>, for receiver: RTPReceiver) async {
        guard let decoder = try? OpusDecoder(channels: 1) else { return }
        let track = receiver.track
        var expected: UInt32?
        var lastSamples: UInt32 = 960
        for await frame in frames {
            // Frames went undecoded (nobody took the track): start afresh, conceal nothing.
            if receiver.audioDecodingSkipped.exchange(false, ordering: .relaxed) { expected = nil }
            if let next = expected {
                let missing = RTPTimestamp.distance(from: next, to: frame.timestamp)
                if missing > 0 {
                    let lost = (Int(missing) + Int(lastSamples) - 1) / Int(lastSamples)
                    let fec = OpusDecoder.carriesFEC(frame.data)
                    for _ in 0..<min(5, lost - (fec ? 1 : 0)) {
                        guard let concealed = try? decoder.decode(nil) else { break }
                        receiver.decoding.withLock {
                            $0.concealedSamples += Int64(concealed.samplesPerChannel)
                            $0.totalSamplesReceived += Int64(concealed.samplesPerChannel)
                            $0.concealmentEvents += 1
                        }
                        track.push(.audio(concealed))
                    }
                    if fec, let recovered = try? decoder.recoverLost(from: frame) {
                        receiver.decoding.withLock {
                            $0.fecRecovered += 1
                            $0.totalSamplesReceived += Int64(recovered.samplesPerChannel)
                        }
                        track.push(.audio(recovered))
                    }
                }
            }
            let start = ContinuousClock.now
            guard let audio = try? decoder.decode(frame) else {
                receiver.decoding.withLock { $0.framesDropped += 1 }
                continue
            }
            let elapsed = ContinuousClock.now - start
            lastSamples = UInt32(max(1, audio.samplesPerChannel))
            expected = frame.timestamp &+ lastSamples
            let level = AudioLevelMeter.rms(of: audio)
            receiver.decoding.withLock {
                $0.framesDecoded += 1
                $0.totalDecodeTime += elapsed.seconds
                $0.totalSamplesReceived += Int64(audio.samplesPerChannel)
                $0.audioLevel = level
            }
            track.push(.audio(audio))
        }
    }
}
