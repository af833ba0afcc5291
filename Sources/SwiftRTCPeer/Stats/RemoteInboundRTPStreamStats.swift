import SwiftRTCSDP

/// W3C `RTCRemoteInboundRtpStreamStats` (`remote-inbound-rtp`): what the peer's receiver
/// reports (RTCP report blocks) about one of our streams.
struct RemoteInboundRTPStreamStats: W3CStats {
    var ssrc: UInt32
    var id: String { "RI-\(ssrc)" }
    var kind: MediaKind
    var localId: String
    var codecId: String
    var packetsLost: Int64
    var fractionLost: Double
    var jitter: Double
    var roundTripTime: Double?
    var totalRoundTripTime: Double
    var roundTripTimeMeasurements: Int64

    var entry: StatsReport.Stats {
        var stats = StatsReport.Stats(id: id, type: .remoteInboundRTP)
        stats["ssrc"] = .int(Int64(ssrc))
        stats["kind"] = .string(kind.rawValue)
        stats["localId"] = .string(localId)
        stats["codecId"] = .string(codecId)
        stats["packetsLost"] = .int(packetsLost)
        stats["fractionLost"] = .double(fractionLost)
        stats["jitter"] = .double(jitter)
        stats["roundTripTime"] = roundTripTime.map { .double($0) }
        stats["totalRoundTripTime"] = .double(totalRoundTripTime)
        stats["roundTripTimeMeasurements"] = .int(roundTripTimeMeasurements)
        return stats
    }
}
