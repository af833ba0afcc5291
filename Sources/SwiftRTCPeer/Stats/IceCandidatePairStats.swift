/// W3C `RTCIceCandidatePairStats` (`candidate-pair`) of the selected pair: the only pair
/// reported, so it is nominated and succeeded.
struct IceCandidatePairStats: W3CStats {
    var localCandidateId: String
    var remoteCandidateId: String
    var id: String { "CP-\(localCandidateId)-\(remoteCandidateId)" }
    var bytesSent: Int64
    var bytesReceived: Int64
    var packetsSent: Int64
    var packetsReceived: Int64
    var currentRoundTripTime: Double?
    var totalRoundTripTime: Double
    var responsesReceived: Int64
    /// The congestion controller's estimate, bits per second.
    var availableOutgoingBitrate: Double

    var entry: StatsReport.Stats {
        var stats = StatsReport.Stats(id: id, type: .candidatePair)
        stats["localCandidateId"] = .string(localCandidateId)
        stats["remoteCandidateId"] = .string(remoteCandidateId)
        stats["state"] = .string("succeeded")
        stats["nominated"] = .int(1)
        stats["bytesSent"] = .int(bytesSent)
        stats["bytesReceived"] = .int(bytesReceived)
        stats["packetsSent"] = .int(packetsSent)
        stats["packetsReceived"] = .int(packetsReceived)
        stats["currentRoundTripTime"] = currentRoundTripTime.map { .double($0) }
        stats["totalRoundTripTime"] = .double(totalRoundTripTime)
        stats["responsesReceived"] = .int(responsesReceived)
        stats["availableOutgoingBitrate"] = .double(availableOutgoingBitrate)
        return stats
    }
}
