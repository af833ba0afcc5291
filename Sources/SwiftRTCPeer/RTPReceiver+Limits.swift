import SwiftRTCCore
import SwiftRTCRTP
import SwiftRTCReceive

extension RTPReceiver {
    /// How often this receiver hit one of ``RemoteInputLimits`` since it was made (each count
    /// only grows; a new negotiation keeps them).
    public struct LimitCounts: Sendable, Hashable {
        /// Sequence jumps beyond the NACK list (``RemoteInputLimits/maxNackMissingPackets``)
        /// that started it over.
        public var nackJumpsRestarted: Int64 = 0
        /// Sequence jumps past everything the jitter buffer held that started it over.
        public var jitterBufferJumpsRestarted: Int64 = 0
        /// Timestamp jumps (``RemoteInputLimits/maxTransitJump``) kept out of the jitter
        /// estimate and the playout clock.
        public var timestampJumps: Int64 = 0
        /// RTX packets dropped for an original sequence number far from the stream's
        /// (``RemoteInputLimits/maxRetransmissionLead``, ``RemoteInputLimits/maxNackAge``).
        public var rtxOutOfWindow: Int64 = 0
        /// Video frames dropped while assembled for growing beyond
        /// ``RemoteInputLimits/maxEncodedVideoFrameBytes``.
        public var encodedFramesTooLarge: Int64 = 0
        /// Video keyframes dropped before decoding for a picture above the configured
        /// maximum (``RemoteInputLimits/maxDecodedPixels`` by default).
        public var framesTooLarge: Int64 = 0
        /// Keyframe requests (PLI/FIR) held back by their rate limit, once per interval.
        public var keyframeRequestsRateLimited: Int64 = 0
        /// Frames the full decoder queue dropped (``RemoteInputLimits/decoderQueueVideoFrames``,
        /// ``RemoteInputLimits/decoderQueueAudioFrames``).
        public var decoderQueueDropped: Int64 = 0

        /// The counts by ``RemoteInputLimit`` (for `limitHits.<name>` in the stats), zeros left out.
        public var hits: [(limit: RemoteInputLimit, count: Int64)] {
            let all: [(limit: RemoteInputLimit, count: Int64)] = [
                (.sequenceJump, nackJumpsRestarted + jitterBufferJumpsRestarted + timestampJumps),
                (.rtxWindow, rtxOutOfWindow),
                (.encodedFrameBytes, encodedFramesTooLarge),
                (.frameSize, framesTooLarge),
                (.keyframeRequestRate, keyframeRequestsRateLimited),
                (.queueFull, decoderQueueDropped),
            ]
            return all.filter { $0.count > 0 }
        }

        /// Adds the counts of a frame assembler (being replaced).
        mutating func add(_ assembler: FrameAssembler) {
            jitterBufferJumpsRestarted += Int64(assembler.jitterBuffer.jumpsRestarted)
            timestampJumps += Int64(assembler.jitterBuffer.timestampJumps)
            encodedFramesTooLarge += Int64(assembler.oversizedFrames)
        }
    }

    /// How often this receiver hit one of ``RemoteInputLimits``.
    public var limitCounts: LimitCounts {
        var counts = path.withLock { path in
            var counts = path.retiredAssemblerLimits
            if let assembler = path.assembler { counts.add(assembler) }
            counts.nackJumpsRestarted +=
                path.recovery.retiredNackRestarts + Int64(path.recovery.nack?.jumpsRestarted ?? 0)
            counts.keyframeRequestsRateLimited +=
                path.recovery.retiredKeyframesRateLimited + Int64(path.recovery.keyframes.rateLimited)
            counts.rtxOutOfWindow = path.recovery.rtxOutOfWindow
            return counts
        }
        counts.framesTooLarge = decoding.withLock { $0.framesTooLarge }
        counts.decoderQueueDropped = Int64(framesLostBeforeDecoding.load(ordering: .relaxed))
        return counts
    }
}
