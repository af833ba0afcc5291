import SwiftRTCSDP

/// W3C `RTCCodecStats` (`codec`): one per payload type sent (`CO-`) or received (`CI-`).
struct CodecStats: W3CStats {
    var id: String
    var kind: MediaKind
    var payloadType: UInt8
    var name: String
    var clockRate: UInt32
    var channels: Int

    var entry: StatsReport.Stats {
        var stats = StatsReport.Stats(id: id, type: .codec)
        stats["payloadType"] = .int(Int64(payloadType))
        stats["mimeType"] = .string("\(kind.rawValue)/\(name)")
        stats["clockRate"] = .int(Int64(clockRate))
        if kind == .audio { stats["channels"] = .int(Int64(channels)) }
        stats["transportId"] = .string(TransportStats.id)
        return stats
    }
}
