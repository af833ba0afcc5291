import SwiftRTCSDP

/// W3C `RTCIceCandidateStats` (`local-candidate`, `remote-candidate`).
struct IceCandidateStats: W3CStats {
    var id: String
    var isRemote: Bool
    var candidate: IceCandidate

    init(_ candidate: IceCandidate, isRemote: Bool) {
        self.candidate = candidate
        self.isRemote = isRemote
        id = "\(isRemote ? "CR" : "CL")-\(candidate.foundation)-\(candidate.port)"
    }

    var entry: StatsReport.Stats {
        var stats = StatsReport.Stats(id: id, type: isRemote ? .remoteCandidate : .localCandidate)
        stats["transportId"] = .string(TransportStats.id)
        stats["address"] = .string(candidate.address)
        stats["port"] = .int(Int64(candidate.port))
        stats["protocol"] = .string(candidate.transport.lowercased())
        stats["candidateType"] = .string(candidate.type.rawValue)
        stats["priority"] = .int(Int64(candidate.priority))
        stats["foundation"] = .string(candidate.foundation)
        return stats
    }
}
