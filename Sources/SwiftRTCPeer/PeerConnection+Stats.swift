import Foundation
import SwiftRTCCore
import SwiftRTCDTLS
import SwiftRTCICE
import SwiftRTCSDP

/// What the previous report counted, for rates (frames per second) over the last interval.
struct StatsCollector {
    var lastTime: Double?
    var lastCounts: [String: Double] = [:]

    /// `count` per second since the previous report (or the start) for `key`.
    mutating func rate(_ key: String, count: Double, now: Double) -> Double? {
        defer { lastCounts[key] = count }
        guard let last = lastTime, now > last else { return nil }
        return max(0, (count - (lastCounts[key] ?? 0)) / (now - last))
    }
}

extension PeerConnection {
    /// The connection's statistics now (W3C `getStats()`).
    public func stats() -> StatsReport {
        let now = Date().timeIntervalSince1970
        var report = StatsReport(timestamp: now * 1000)
        var collector = statsCollector
        defer {
            collector.lastTime = now
            statsCollector = collector
        }
        guard let transport else { return report }
        let counters = transport.counterValues
        var transportStats = StatsReport.Stats(id: "T01", type: .transport)
        transportStats["bytesSent"] = .int(counters.bytesSent)
        transportStats["bytesReceived"] = .int(counters.bytesReceived)
        transportStats["packetsSent"] = .int(counters.packetsSent)
        transportStats["packetsReceived"] = .int(counters.packetsReceived)
        transportStats["iceState"] = .string(iceState.rawValue)
        transportStats["dtlsState"] = .string(dtlsState == .connected ? "connected" : "\(dtlsState)")
        if let negotiated = dtlsNegotiated {
            // W3C webrtc-stats RTCTransportStats: IANA names, as browsers report them.
            transportStats["dtlsRole"] = .string(negotiated.role.rawValue)
            transportStats["dtlsCipher"] = .string(negotiated.cipherSuite)
            transportStats["srtpCipher"] = .string(negotiated.srtpProfile)
        }
        transportStats["rtpPacketsUnroutable"] = .int(counters.unroutable)
        transportStats["packetsMalformed"] = .int(counters.malformed)
        transportStats["srtpBeforeKeyingDropped"] = .int(counters.earlyDropped)
        // Limits hit on remote input: the connection's own counts, its receivers' and senders'.
        var hits: [RemoteInputLimit: Int64] = [:]
        for (limit, count) in limitHits.nonZero { hits[limit, default: 0] += count }
        for transceiver in transceiverList {
            for (limit, count) in transceiver.receiver.limitCounts.hits { hits[limit, default: 0] += count }
            for (limit, count) in transceiver.sender.limitHits { hits[limit, default: 0] += count }
        }
        for (limit, count) in hits { transportStats["limitHits.\(limit.name)"] = .int(count) }
        transportStats["datagramsDropped"] = .int(Int64(transport.agent.demultiplexer.dropped))
        if let dtls = transport.dtlsTransport {
            transportStats["dtlsDatagramsDropped"] = .int(Int64(dtls.droppedDatagrams))
        }
        transportStats["iceRole"] = .string(
            transport.agent.configuration.role == .controlling ? "controlling" : "controlled"
        )
        if let srtp = transport.srtpCounters {
            transportStats["srtpAuthenticationFailures"] = .int(Int64(srtp.authenticationFailures))
            transportStats["srtpReplays"] = .int(Int64(srtp.replays))
            transportStats["srtpRemoteStreams"] = .int(Int64(srtp.remoteStreams))
            transportStats["srtpRemoteStreamsEvicted"] = .int(Int64(srtp.remoteStreamsEvicted))
        }
        if let pair = transport.agent.selectedPair {
            let local = candidateStats(
                pair.local,
                id: "CL-\(pair.local.foundation)-\(pair.local.port)",
                type: .localCandidate
            )
            let remote = candidateStats(
                pair.remote,
                id: "CR-\(pair.remote.foundation)-\(pair.remote.port)",
                type: .remoteCandidate
            )
            report.add(local)
            report.add(remote)
            var pairStats = StatsReport.Stats(id: "CP-\(local.id)-\(remote.id)", type: .candidatePair)
            pairStats["localCandidateId"] = .string(local.id)
            pairStats["remoteCandidateId"] = .string(remote.id)
            pairStats["state"] = .string("succeeded")
            pairStats["nominated"] = .int(1)
            pairStats["bytesSent"] = .int(counters.bytesSent)
            pairStats["bytesReceived"] = .int(counters.bytesReceived)
            pairStats["packetsSent"] = .int(counters.packetsSent)
            pairStats["packetsReceived"] = .int(counters.packetsReceived)
            if let rtt = counters.lastRoundTripTime ?? pair.roundTripTime.map(\.seconds) {
                pairStats["currentRoundTripTime"] = .double(rtt)
            }
            pairStats["totalRoundTripTime"] = .double(counters.totalRoundTripTime)
            pairStats["responsesReceived"] = .int(counters.roundTripMeasurements)
            pairStats["availableOutgoingBitrate"] = .double(Double(transport.congestion.availableOutgoingBitrate))
            report.add(pairStats)
            transportStats["selectedCandidatePairId"] = .string(pairStats.id)
        }
        report.add(transportStats)

        for transceiver in transceiverList {
            let kind = transceiver.kind.rawValue
            let sender = transceiver.sender
            if let parameters = sender.parameters {
                let c = sender.counters.withLock { $0 }
                let codecId = "CO-\(parameters.payloadType)"
                report.add(
                    codecStats(
                        id: codecId,
                        payloadType: parameters.payloadType,
                        kind: kind,
                        name: parameters.codecName,
                        clockRate: parameters.clockRate,
                        channels: parameters.channels
                    )
                )
                let sourceId = "MS-\(sender.ssrc)"
                var source = StatsReport.Stats(id: sourceId, type: .mediaSource)
                source["kind"] = .string(kind)
                source["trackIdentifier"] = .string(sender.track?.id ?? "")
                if transceiver.kind == .video {
                    source["width"] = .int(Int64(c.captureWidth))
                    source["height"] = .int(Int64(c.captureHeight))
                    source["frames"] = .int(c.framesCaptured)
                    if let fps = collector.rate(sourceId + "frames", count: Double(c.framesCaptured), now: now) {
                        source["framesPerSecond"] = .double(fps)
                    }
                } else {
                    source["audioLevel"] = .double(c.audioLevel)
                    // Pushed frames that are no audio (channel count not 1 or 2, samples not
                    // whole channel groups): dropped, and counted here (not a W3C field).
                    source["framesRejected"] = .int(c.audioFramesRejected)
                }
                report.add(source)
                var out = StatsReport.Stats(id: "OT-\(sender.ssrc)", type: .outboundRTP)
                out["ssrc"] = .int(Int64(sender.ssrc))
                out["kind"] = .string(kind)
                out["mid"] = .string(parameters.mid)
                out["codecId"] = .string(codecId)
                out["mediaSourceId"] = .string(sourceId)
                out["transportId"] = .string("T01")
                out["packetsSent"] = .int(c.packetsSent)
                out["bytesSent"] = .int(c.bytesSent)
                out["headerBytesSent"] = .int(c.headerBytesSent)
                out["framesEncoded"] = .int(c.framesEncoded)
                out["totalEncodeTime"] = .double(c.totalEncodeTime)
                out["totalEncodedBytesTarget"] = .int(c.encodedBytes)
                out["targetBitrate"] = .double(Double(c.targetBitrate))
                out["nackCount"] = .int(c.nackReceived)
                out["pliCount"] = .int(c.pliReceived)
                out["firCount"] = .int(c.firReceived)
                if let rtx = sender.rtxSsrc { out["rtxSsrc"] = .int(Int64(rtx)) }
                if transceiver.kind == .video {
                    out["keyFramesEncoded"] = .int(c.keyFramesEncoded)
                    out["framesSent"] = .int(c.framesSent)
                    out["frameWidth"] = .int(Int64(c.frameWidth))
                    out["frameHeight"] = .int(Int64(c.frameHeight))
                    if let qp = c.qpAverage { out["qpAverage"] = .double(qp) }
                    if let fps = collector.rate(out.id + "frames", count: Double(c.framesSent), now: now) {
                        out["framesPerSecond"] = .double(fps)
                    }
                }
                var remoteIn = StatsReport.Stats(id: "RI-\(sender.ssrc)", type: .remoteInboundRTP)
                remoteIn["ssrc"] = .int(Int64(sender.ssrc))
                remoteIn["kind"] = .string(kind)
                remoteIn["localId"] = .string(out.id)
                remoteIn["codecId"] = .string(codecId)
                remoteIn["packetsLost"] = .int(c.remotePacketsLost)
                remoteIn["fractionLost"] = .double(c.remoteFractionLost)
                remoteIn["jitter"] = .double(c.remoteJitter)
                if let rtt = c.remoteRoundTripTime { remoteIn["roundTripTime"] = .double(rtt) }
                remoteIn["totalRoundTripTime"] = .double(c.remoteTotalRoundTripTime)
                remoteIn["roundTripTimeMeasurements"] = .int(c.remoteRoundTripMeasurements)
                out["remoteId"] = .string(remoteIn.id)
                sender.addRecoveryStats(to: &out, counters: c)
                report.add(out)
                report.add(remoteIn)
            }
            let receiver = transceiver.receiver
            if let parameters = receiver.parameters {
                let path = receiver.path.withLock { path in
                    (
                        ssrc: path.remoteSSRC, packets: path.packetsReceived, bytes: path.bytesReceived,
                        headers: path.headerBytesReceived,
                        frames: path.framesAssembled, delay: path.jitterBufferDelay,
                        lost: Int64(path.statistics?.cumulativeLost ?? 0), jitter: path.statistics?.jitterSeconds ?? 0,
                        discarded: Int64(path.assembler?.jitterBuffer.latePackets ?? 0)
                            + Int64(path.assembler?.jitterBuffer.duplicates ?? 0)
                    )
                }
                let d = receiver.decoding.withLock { $0 }
                let codecId = "CI-\(parameters.payloadType)"
                report.add(
                    codecStats(
                        id: codecId,
                        payloadType: parameters.payloadType,
                        kind: kind,
                        name: parameters.codecName,
                        clockRate: parameters.clockRate,
                        channels: parameters.channels
                    )
                )
                var inbound = StatsReport.Stats(id: "IT-\(transceiver.mid ?? "-")", type: .inboundRTP)
                inbound["ssrc"] = .int(Int64(path.ssrc ?? 0))
                inbound["kind"] = .string(kind)
                inbound["mid"] = .string(transceiver.mid ?? "")
                inbound["codecId"] = .string(codecId)
                inbound["transportId"] = .string("T01")
                inbound["trackIdentifier"] = .string(receiver.track.id)
                inbound["packetsReceived"] = .int(path.packets)
                inbound["packetsLost"] = .int(path.lost)
                inbound["packetsDiscarded"] = .int(path.discarded)
                inbound["bytesReceived"] = .int(path.bytes)
                inbound["headerBytesReceived"] = .int(path.headers)
                inbound["jitter"] = .double(path.jitter)
                inbound["jitterBufferDelay"] = .double(path.delay)
                inbound["jitterBufferEmittedCount"] = .int(path.frames)
                inbound["totalDecodeTime"] = .double(d.totalDecodeTime)
                if transceiver.kind == .video {
                    inbound["framesReceived"] = .int(path.frames)
                    inbound["framesDecoded"] = .int(d.framesDecoded)
                    inbound["keyFramesDecoded"] = .int(d.keyFramesDecoded)
                    inbound["framesDropped"] = .int(d.framesDropped)
                    inbound["frameWidth"] = .int(Int64(d.frameWidth))
                    inbound["frameHeight"] = .int(Int64(d.frameHeight))
                    if let fps = collector.rate(inbound.id + "decoded", count: Double(d.framesDecoded), now: now) {
                        inbound["framesPerSecond"] = .double(fps)
                    }
                    if let fps = collector.rate(inbound.id + "received", count: Double(path.frames), now: now) {
                        inbound["framesReceivedPerSecond"] = .double(fps)
                    }
                } else {
                    inbound["framesDecoded"] = .int(d.framesDecoded)
                    inbound["totalSamplesReceived"] = .int(d.totalSamplesReceived)
                    inbound["concealedSamples"] = .int(d.concealedSamples)
                    inbound["concealmentEvents"] = .int(d.concealmentEvents)
                    inbound["audioLevel"] = .double(d.audioLevel)
                }
                receiver.addRecoveryStats(to: &inbound, decoding: d)
                report.add(inbound)
            }
        }
        return report
    }

    /// Stats reports every `interval`, until the connection closes or the consumer stops.
    public func statsReports(interval: Duration) -> AsyncStream<StatsReport> {
        AsyncStream(bufferingPolicy: .bufferingNewest(4)) { continuation in
            let task = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    guard let self, !(await self.isClosed), !Task.isCancelled else { break }
                    continuation.yield(await self.stats())
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The statsString of DESIGN.md for the interval since the previous call (or since the
    /// connection started).
    public func statsString() -> String {
        let current = stats()
        defer { lastStatsForString = current }
        return current.statsString(since: lastStatsForString)
    }

    private func candidateStats(_ candidate: IceCandidate, id: String, type: StatsReport.StatsType) -> StatsReport.Stats
    {
        var stats = StatsReport.Stats(id: id, type: type)
        stats["transportId"] = .string("T01")
        stats["address"] = .string(candidate.address)
        stats["port"] = .int(Int64(candidate.port))
        stats["protocol"] = .string(candidate.transport.lowercased())
        stats["candidateType"] = .string(candidate.type.rawValue)
        stats["priority"] = .int(Int64(candidate.priority))
        stats["foundation"] = .string(candidate.foundation)
        return stats
    }

    private func codecStats(
        id: String,
        payloadType: UInt8,
        kind: String,
        name: String,
        clockRate: UInt32,
        channels: Int
    ) -> StatsReport.Stats {
        var stats = StatsReport.Stats(id: id, type: .codec)
        stats["payloadType"] = .int(Int64(payloadType))
        stats["mimeType"] = .string("\(kind)/\(name)")
        stats["clockRate"] = .int(Int64(clockRate))
        if kind == "audio" { stats["channels"] = .int(Int64(channels)) }
        stats["transportId"] = .string("T01")
        return stats
    }
}
