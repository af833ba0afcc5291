import SwiftRTCCore
import SwiftRTCDTLS
import SwiftRTCICE

extension PeerTransport {
    /// The transport's stats, and the ICE agent's selected pair with its two candidates. The
    /// connection gives what it tracks itself: the states, the negotiated DTLS parameters and
    /// the remote-input limits its parts hit.
    func collectStats(
        into report: inout StatsReport,
        iceState: IceConnectionState,
        dtlsState: DtlsState,
        dtls negotiated: (role: DtlsRole, cipherSuite: String, srtpProfile: String)?,
        limitHits: [RemoteInputLimit: Int64]
    ) {
        let counters = counterValues
        var transport = TransportStats(
            bytesSent: counters.bytesSent,
            bytesReceived: counters.bytesReceived,
            packetsSent: counters.packetsSent,
            packetsReceived: counters.packetsReceived,
            iceState: iceState.rawValue,
            iceRole: agent.configuration.role == .controlling ? "controlling" : "controlled",
            dtlsState: dtlsState == .connected ? "connected" : "\(dtlsState)",
            dtlsRole: negotiated?.role.rawValue,
            dtlsCipher: negotiated?.cipherSuite,
            srtpCipher: negotiated?.srtpProfile,
            rtpPacketsUnroutable: counters.unroutable,
            packetsMalformed: counters.malformed,
            srtpBeforeKeyingDropped: counters.earlyDropped,
            datagramsDropped: Int64(agent.demultiplexer.dropped),
            dtlsDatagramsDropped: dtlsTransport.map { Int64($0.droppedDatagrams) },
            dtlsApplicationDataDropped: dtlsTransport.map { Int64($0.droppedApplicationData) },
            srtp: srtpCounters.map {
                .init(
                    authenticationFailures: Int64($0.authenticationFailures),
                    replays: Int64($0.replays),
                    remoteStreams: Int64($0.remoteStreams),
                    remoteStreamsEvicted: Int64($0.remoteStreamsEvicted)
                )
            },
            limitHits: limitHits
        )
        if let pair = agent.selectedPair {
            let local = IceCandidateStats(pair.local, isRemote: false)
            let remote = IceCandidateStats(pair.remote, isRemote: true)
            let pairStats = IceCandidatePairStats(
                localCandidateId: local.id,
                remoteCandidateId: remote.id,
                bytesSent: counters.bytesSent,
                bytesReceived: counters.bytesReceived,
                packetsSent: counters.packetsSent,
                packetsReceived: counters.packetsReceived,
                currentRoundTripTime: counters.lastRoundTripTime ?? pair.roundTripTime.map(\.seconds),
                totalRoundTripTime: counters.totalRoundTripTime,
                responsesReceived: counters.roundTripMeasurements,
                availableOutgoingBitrate: Double(congestion.availableOutgoingBitrate)
            )
            report.add(local)
            report.add(remote)
            report.add(pairStats)
            transport.selectedCandidatePairId = pairStats.id
        }
        report.add(transport)
    }
}
