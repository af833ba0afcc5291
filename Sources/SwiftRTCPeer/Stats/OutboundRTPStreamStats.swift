import SwiftRTCSDP

/// W3C `RTCOutboundRtpStreamStats` (`outbound-rtp`): one sender's stream.
struct OutboundRTPStreamStats: W3CStats {
    var ssrc: UInt32
    var id: String { "OT-\(ssrc)" }
    var kind: MediaKind
    var mid: String
    /// The simulcast encoding's rid, if any.
    var rid: String?
    var codecId: String
    var mediaSourceId: String
    var remoteId: String
    var rtxSsrc: UInt32?
    var packetsSent: Int64
    var bytesSent: Int64
    var headerBytesSent: Int64
    var retransmittedPacketsSent: Int64
    var retransmittedBytesSent: Int64
    var framesEncoded: Int64
    var totalEncodeTime: Double
    var totalEncodedBytesTarget: Int64
    var targetBitrate: Double
    var nackCount: Int64
    var pliCount: Int64
    var firCount: Int64
    /// Video only.
    var keyFramesEncoded: Int64 = 0
    var framesSent: Int64 = 0
    var frameWidth = 0
    var frameHeight = 0
    var qpAverage: Double?
    var framesPerSecond: Double?

    var entry: StatsReport.Stats {
        var stats = StatsReport.Stats(id: id, type: .outboundRTP)
        stats["ssrc"] = .int(Int64(ssrc))
        stats["kind"] = .string(kind.rawValue)
        stats["mid"] = .string(mid)
        stats["rid"] = rid.map { .string($0) }
        stats["codecId"] = .string(codecId)
        stats["mediaSourceId"] = .string(mediaSourceId)
        stats["transportId"] = .string(TransportStats.id)
        stats["remoteId"] = .string(remoteId)
        stats["rtxSsrc"] = rtxSsrc.map { .int(Int64($0)) }
        stats["packetsSent"] = .int(packetsSent)
        stats["bytesSent"] = .int(bytesSent)
        stats["headerBytesSent"] = .int(headerBytesSent)
        stats["retransmittedPacketsSent"] = .int(retransmittedPacketsSent)
        stats["retransmittedBytesSent"] = .int(retransmittedBytesSent)
        stats["framesEncoded"] = .int(framesEncoded)
        stats["totalEncodeTime"] = .double(totalEncodeTime)
        stats["totalEncodedBytesTarget"] = .int(totalEncodedBytesTarget)
        stats["targetBitrate"] = .double(targetBitrate)
        stats["nackCount"] = .int(nackCount)
        stats["pliCount"] = .int(pliCount)
        stats["firCount"] = .int(firCount)
        if kind == .video {
            stats["keyFramesEncoded"] = .int(keyFramesEncoded)
            stats["framesSent"] = .int(framesSent)
            stats["frameWidth"] = .int(Int64(frameWidth))
            stats["frameHeight"] = .int(Int64(frameHeight))
            stats["qpAverage"] = qpAverage.map { .double($0) }
            stats["framesPerSecond"] = framesPerSecond.map { .double($0) }
        }
        return stats
    }
}
