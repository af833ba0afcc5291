import SwiftRTCCore

/// W3C `RTCTransportStats` (`transport`), with the counts of what the transport dropped.
struct TransportStats: W3CStats {
    static let id = "T01"
    var id: String { Self.id }
    var bytesSent: Int64
    var bytesReceived: Int64
    var packetsSent: Int64
    var packetsReceived: Int64
    var iceState: String
    var iceRole: String
    var dtlsState: String
    /// Once DTLS is up: the role and the IANA names of the ciphers, as browsers report them.
    var dtlsRole: String?
    var dtlsCipher: String?
    var srtpCipher: String?
    var selectedCandidatePairId: String?
    var rtpPacketsUnroutable: Int64
    var packetsMalformed: Int64
    var srtpBeforeKeyingDropped: Int64
    var datagramsDropped: Int64
    var dtlsDatagramsDropped: Int64?
    /// Application data (SCTP packets) DTLS could not send: too long for a record, or not connected.
    var dtlsApplicationDataDropped: Int64?
    /// Once SRTP is keyed.
    var srtp: SrtpCounts?
    /// Limits hit on remote input (`limitHits.<name>`), the connection's and its streams'.
    var limitHits: [RemoteInputLimit: Int64] = [:]

    struct SrtpCounts {
        var authenticationFailures: Int64
        var replays: Int64
        var remoteStreams: Int64
        var remoteStreamsEvicted: Int64
    }

    var entry: StatsReport.Stats {
        var stats = StatsReport.Stats(id: id, type: .transport)
        stats["bytesSent"] = .int(bytesSent)
        stats["bytesReceived"] = .int(bytesReceived)
        stats["packetsSent"] = .int(packetsSent)
        stats["packetsReceived"] = .int(packetsReceived)
        stats["iceState"] = .string(iceState)
        stats["iceRole"] = .string(iceRole)
        stats["dtlsState"] = .string(dtlsState)
        stats["dtlsRole"] = dtlsRole.map { .string($0) }
        stats["dtlsCipher"] = dtlsCipher.map { .string($0) }
        stats["srtpCipher"] = srtpCipher.map { .string($0) }
        stats["selectedCandidatePairId"] = selectedCandidatePairId.map { .string($0) }
        stats["rtpPacketsUnroutable"] = .int(rtpPacketsUnroutable)
        stats["packetsMalformed"] = .int(packetsMalformed)
        stats["srtpBeforeKeyingDropped"] = .int(srtpBeforeKeyingDropped)
        stats["datagramsDropped"] = .int(datagramsDropped)
        stats["dtlsDatagramsDropped"] = dtlsDatagramsDropped.map { .int($0) }
        stats["dtlsApplicationDataDropped"] = dtlsApplicationDataDropped.map { .int($0) }
        if let srtp {
            stats["srtpAuthenticationFailures"] = .int(srtp.authenticationFailures)
            stats["srtpReplays"] = .int(srtp.replays)
            stats["srtpRemoteStreams"] = .int(srtp.remoteStreams)
            stats["srtpRemoteStreamsEvicted"] = .int(srtp.remoteStreamsEvicted)
        }
        for (limit, count) in limitHits { stats["limitHits.\(limit.name)"] = .int(count) }
        return stats
    }
}
