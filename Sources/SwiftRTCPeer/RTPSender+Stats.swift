extension RTPSender {
    /// The sender's stats: its codec, its track as a media source (the one `source`, the first
    /// simulcast encoding, reports for all), its stream, and the peer's reports about that
    /// stream. Nothing before negotiation.
    func collectStats(into report: inout StatsReport, rates: inout StatsRates, now: Double, source first: RTPSender) {
        guard let parameters else { return }
        let c = counters.withLock { $0 }
        let codec = CodecStats(
            id: "CO-\(parameters.payloadType)",
            kind: kind,
            payloadType: parameters.payloadType,
            name: parameters.codecName,
            clockRate: parameters.clockRate,
            channels: parameters.channels
        )
        var source = MediaSourceStats(id: "MS-\(first.ssrc)", kind: kind, trackIdentifier: track?.id ?? "")
        var outbound = OutboundRTPStreamStats(
            ssrc: ssrc,
            kind: kind,
            mid: parameters.mid,
            rid: parameters.rid,
            codecId: codec.id,
            mediaSourceId: source.id,
            remoteId: "RI-\(ssrc)",
            rtxSsrc: rtxSsrc,
            packetsSent: c.packetsSent,
            bytesSent: c.bytesSent,
            headerBytesSent: c.headerBytesSent,
            retransmittedPacketsSent: c.retransmittedPacketsSent,
            retransmittedBytesSent: c.retransmittedBytesSent,
            framesEncoded: c.framesEncoded,
            totalEncodeTime: c.totalEncodeTime,
            totalEncodedBytesTarget: c.encodedBytes,
            targetBitrate: Double(c.targetBitrate),
            nackCount: c.nackReceived,
            pliCount: c.pliReceived,
            firCount: c.firReceived
        )
        if kind == .video {
            source.width = c.captureWidth
            source.height = c.captureHeight
            source.frames = c.framesCaptured
            source.framesPerSecond = rates.rate(source.id + "frames", count: c.framesCaptured, now: now)
            outbound.keyFramesEncoded = c.keyFramesEncoded
            outbound.framesSent = c.framesSent
            outbound.frameWidth = c.frameWidth
            outbound.frameHeight = c.frameHeight
            outbound.qpAverage = c.qpAverage
            outbound.framesPerSecond = rates.rate(outbound.id + "frames", count: c.framesSent, now: now)
        } else {
            source.audioLevel = c.audioLevel
            source.framesRejected = c.audioFramesRejected
        }
        let remote = remoteInboundStats(c, localId: outbound.id, codecId: codec.id)
        report.add(codec)
        if first === self { report.add(source) }
        report.add(outbound)
        report.add(remote)
    }

    /// The peer's reports about this stream (loss, jitter, round trip), as the stats of the
    /// remote end of the stream `localId`.
    func remoteInboundStats(_ c: Counters, localId: String, codecId: String) -> RemoteInboundRTPStreamStats {
        RemoteInboundRTPStreamStats(
            ssrc: ssrc,
            kind: kind,
            localId: localId,
            codecId: codecId,
            packetsLost: c.remotePacketsLost,
            fractionLost: c.remoteFractionLost,
            jitter: c.remoteJitter,
            roundTripTime: c.remoteRoundTripTime,
            totalRoundTripTime: c.remoteTotalRoundTripTime,
            roundTripTimeMeasurements: c.remoteRoundTripMeasurements
        )
    }
}
