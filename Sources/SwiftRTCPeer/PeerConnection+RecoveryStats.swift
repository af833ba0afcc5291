import SwiftRTCRTP

extension RTPReceiver {
    /// Loss recovery, keyframe requests, freezes and FEC in W3C inbound-rtp names (plus our
    /// `maxFreezeDuration`, seconds, for video).
    func addRecoveryStats(to inbound: inout StatsReport.Stats, decoding d: Decoding) {
        let recovery = path.withLock { path in
            (nacks: path.recovery.nack?.nacksSent ?? 0, plis: path.recovery.keyframes.pliSent, firs: path.recovery.keyframes.firSent,
             packets: path.recovery.retransmittedPackets, bytes: path.recovery.retransmittedBytes,
             target: path.assembler?.jitterBuffer.targetDelay ?? 0)
        }
        inbound["nackCount"] = .int(Int64(recovery.nacks))
        inbound["retransmittedPacketsReceived"] = .int(recovery.packets)
        inbound["retransmittedBytesReceived"] = .int(recovery.bytes)
        inbound["jitterBufferTargetDelay"] = .double(recovery.target)
        if kind == .video {
            inbound["pliCount"] = .int(Int64(recovery.plis))
            inbound["firCount"] = .int(Int64(recovery.firs))
            inbound["freezeCount"] = .int(d.freezes.freezeCount)
            inbound["totalFreezesDuration"] = .double(d.freezes.totalFreezesDuration)
            inbound["maxFreezeDuration"] = .double(d.freezes.maximumGap)
        } else {
            inbound["fecPacketsReceived"] = .int(d.fecRecovered)
        }
    }
}

extension RTPSender {
    /// Retransmissions in W3C outbound-rtp names.
    func addRecoveryStats(to outbound: inout StatsReport.Stats, counters c: Counters) {
        outbound["retransmittedPacketsSent"] = .int(c.retransmittedPacketsSent)
        outbound["retransmittedBytesSent"] = .int(c.retransmittedBytesSent)
    }
}
