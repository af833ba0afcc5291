extension RTPReceiver {
    /// The receiver's stats: its codec and its stream as received, buffered and decoded.
    /// Nothing before negotiation.
    func collectStats(into report: inout StatsReport, mid: String?, rates: inout StatsRates, now: Double) {
        let d = decoding.withLock { $0 }
        let collected: (codec: CodecStats, inbound: InboundRTPStreamStats)? = path.withLock { path in
            guard let parameters = path.parameters else { return nil }
            let codec = CodecStats(
                id: "CI-\(parameters.payloadType)",
                kind: kind,
                payloadType: parameters.payloadType,
                name: parameters.codecName,
                clockRate: parameters.clockRate,
                channels: parameters.channels
            )
            let buffer = path.assembler?.jitterBuffer
            let recovery = path.recovery
            var inbound = InboundRTPStreamStats(
                mid: mid ?? "",
                kind: kind,
                ssrc: path.remoteSSRC ?? 0,
                codecId: codec.id,
                trackIdentifier: track.id,
                packetsReceived: path.packetsReceived,
                packetsLost: Int64(path.statistics?.cumulativeLost ?? 0),
                packetsDiscarded: Int64(buffer?.latePackets ?? 0) + Int64(buffer?.duplicates ?? 0),
                bytesReceived: path.bytesReceived,
                headerBytesReceived: path.headerBytesReceived,
                jitter: path.statistics?.jitterSeconds ?? 0,
                jitterBufferDelay: path.jitterBufferDelay,
                jitterBufferTargetDelay: buffer?.targetDelay ?? 0,
                jitterBufferEmittedCount: path.framesAssembled,
                framesDecoded: d.framesDecoded,
                totalDecodeTime: d.totalDecodeTime,
                nackCount: Int64(recovery.nack?.nacksSent ?? 0),
                retransmittedPacketsReceived: recovery.retransmittedPackets,
                retransmittedBytesReceived: recovery.retransmittedBytes
            )
            inbound.pliCount = Int64(recovery.keyframes.pliSent)
            inbound.firCount = Int64(recovery.keyframes.firSent)
            return (codec, inbound)
        }
        guard let collected else { return }
        var inbound = collected.inbound
        addDecoding(d, to: &inbound, rates: &rates, now: now)
        report.add(collected.codec)
        report.add(inbound)
    }

    /// What the decoder counted, into the stream's stats: frames, sizes, rates and freezes for
    /// video; samples, concealment, level and FEC recoveries for audio.
    func addDecoding(_ d: Decoding, to inbound: inout InboundRTPStreamStats, rates: inout StatsRates, now: Double) {
        if kind == .video {
            inbound.keyFramesDecoded = d.keyFramesDecoded
            inbound.framesDropped = d.framesDropped
            inbound.frameWidth = d.frameWidth
            inbound.frameHeight = d.frameHeight
            inbound.framesPerSecond = rates.rate(inbound.id + "decoded", count: d.framesDecoded, now: now)
            inbound.framesReceivedPerSecond = rates.rate(
                inbound.id + "received",
                count: inbound.jitterBufferEmittedCount,
                now: now
            )
            inbound.freezeCount = d.freezes.freezeCount
            inbound.totalFreezesDuration = d.freezes.totalFreezesDuration
            inbound.maxFreezeDuration = d.freezes.maximumGap
        } else {
            inbound.totalSamplesReceived = d.totalSamplesReceived
            inbound.concealedSamples = d.concealedSamples
            inbound.concealmentEvents = d.concealmentEvents
            inbound.audioLevel = d.audioLevel
            inbound.fecPacketsReceived = d.fecRecovered
        }
    }
}
