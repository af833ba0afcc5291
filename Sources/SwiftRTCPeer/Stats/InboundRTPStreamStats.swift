import SwiftRTCSDP

/// W3C `RTCInboundRtpStreamStats` (`inbound-rtp`): one receiver's stream, as received,
/// buffered and decoded.
struct InboundRTPStreamStats: W3CStats {
    var mid: String
    var id: String { "IT-\(mid.isEmpty ? "-" : mid)" }
    var kind: MediaKind
    var ssrc: UInt32
    var codecId: String
    var trackIdentifier: String
    var packetsReceived: Int64
    var packetsLost: Int64
    var packetsDiscarded: Int64
    var bytesReceived: Int64
    var headerBytesReceived: Int64
    var jitter: Double
    var jitterBufferDelay: Double
    var jitterBufferTargetDelay: Double
    var jitterBufferEmittedCount: Int64
    var framesDecoded: Int64
    var totalDecodeTime: Double
    var nackCount: Int64
    var retransmittedPacketsReceived: Int64
    var retransmittedBytesReceived: Int64
    /// Video only.
    var keyFramesDecoded: Int64 = 0
    var framesDropped: Int64 = 0
    var frameWidth = 0
    var frameHeight = 0
    var framesPerSecond: Double?
    var framesReceivedPerSecond: Double?
    var pliCount: Int64 = 0
    var firCount: Int64 = 0
    var freezeCount: Int64 = 0
    var totalFreezesDuration = 0.0
    var maxFreezeDuration = 0.0
    /// Audio only.
    var totalSamplesReceived: Int64 = 0
    var concealedSamples: Int64 = 0
    var concealmentEvents: Int64 = 0
    var audioLevel = 0.0
    var fecPacketsReceived: Int64 = 0

    var entry: StatsReport.Stats {
        var stats = StatsReport.Stats(id: id, type: .inboundRTP)
        stats["ssrc"] = .int(Int64(ssrc))
        stats["kind"] = .string(kind.rawValue)
        stats["mid"] = .string(mid)
        stats["codecId"] = .string(codecId)
        stats["transportId"] = .string(TransportStats.id)
        stats["trackIdentifier"] = .string(trackIdentifier)
        stats["packetsReceived"] = .int(packetsReceived)
        stats["packetsLost"] = .int(packetsLost)
        stats["packetsDiscarded"] = .int(packetsDiscarded)
        stats["bytesReceived"] = .int(bytesReceived)
        stats["headerBytesReceived"] = .int(headerBytesReceived)
        stats["jitter"] = .double(jitter)
        stats["jitterBufferDelay"] = .double(jitterBufferDelay)
        stats["jitterBufferTargetDelay"] = .double(jitterBufferTargetDelay)
        stats["jitterBufferEmittedCount"] = .int(jitterBufferEmittedCount)
        stats["framesDecoded"] = .int(framesDecoded)
        stats["totalDecodeTime"] = .double(totalDecodeTime)
        stats["nackCount"] = .int(nackCount)
        stats["retransmittedPacketsReceived"] = .int(retransmittedPacketsReceived)
        stats["retransmittedBytesReceived"] = .int(retransmittedBytesReceived)
        if kind == .video {
            stats["framesReceived"] = .int(jitterBufferEmittedCount)
            stats["keyFramesDecoded"] = .int(keyFramesDecoded)
            stats["framesDropped"] = .int(framesDropped)
            stats["frameWidth"] = .int(Int64(frameWidth))
            stats["frameHeight"] = .int(Int64(frameHeight))
            stats["framesPerSecond"] = framesPerSecond.map { .double($0) }
            stats["framesReceivedPerSecond"] = framesReceivedPerSecond.map { .double($0) }
            stats["pliCount"] = .int(pliCount)
            stats["firCount"] = .int(firCount)
            stats["freezeCount"] = .int(freezeCount)
            stats["totalFreezesDuration"] = .double(totalFreezesDuration)
            stats["maxFreezeDuration"] = .double(maxFreezeDuration)
        } else {
            stats["totalSamplesReceived"] = .int(totalSamplesReceived)
            stats["concealedSamples"] = .int(concealedSamples)
            stats["concealmentEvents"] = .int(concealmentEvents)
            stats["audioLevel"] = .double(audioLevel)
            stats["fecPacketsReceived"] = .int(fecPacketsReceived)
        }
        return stats
    }
}
