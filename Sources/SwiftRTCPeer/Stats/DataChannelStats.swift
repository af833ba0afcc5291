import SwiftRTCDataChannel

/// W3C `RTCDataChannelStats` (`data-channel`): one per channel open or opening.
struct DataChannelStats: W3CStats {
    var id: String
    var label: String
    var `protocol`: String
    var dataChannelIdentifier: Int64?
    var state: String
    var statistics: DataChannel.Statistics
    var bufferedAmount: Int64

    var entry: StatsReport.Stats {
        var stats = StatsReport.Stats(id: id, type: .dataChannel)
        stats["label"] = .string(label)
        stats["protocol"] = .string(`protocol`)
        if let dataChannelIdentifier { stats["dataChannelIdentifier"] = .int(dataChannelIdentifier) }
        stats["state"] = .string(state)
        stats["messagesSent"] = .int(Int64(statistics.messagesSent))
        stats["bytesSent"] = .int(Int64(statistics.bytesSent))
        stats["messagesReceived"] = .int(Int64(statistics.messagesReceived))
        stats["bytesReceived"] = .int(Int64(statistics.bytesReceived))
        // Not W3C: what waits to be sent.
        stats["bufferedAmount"] = .int(bufferedAmount)
        return stats
    }
}

/// W3C `RTCPeerConnectionStats` (`peer-connection`): channels opened and closed, with the
/// data channel transport's limit counts.
struct PeerConnectionStats: W3CStats {
    static let id = "P"
    var id: String { Self.id }
    var transport: DataChannelTransport.Statistics

    var entry: StatsReport.Stats {
        var stats = StatsReport.Stats(id: id, type: .peerConnection)
        stats["dataChannelsOpened"] = .int(Int64(transport.dataChannelsOpened))
        stats["dataChannelsClosed"] = .int(Int64(transport.dataChannelsClosed))
        // Not W3C: the limits of DataChannelTransport, hit.
        stats["dataChannelsRefused"] = .int(Int64(transport.remoteChannelsRefused))
        stats["sctpEarlyPacketsDropped"] = .int(Int64(transport.earlyPacketsDropped))
        stats["dataMessagesOversized"] = .int(Int64(transport.oversizedMessagesDropped))
        stats["sctpMalformedPacketsDropped"] = .int(Int64(transport.malformedPacketsDropped))
        // The channels' unread messages reached their limit: the association stopped reading.
        stats["dataUnreadLimitReached"] = .int(Int64(transport.unreadLimitReached))
        return stats
    }
}

extension DataChannelTransport {
    /// The connection's and each channel's data channel stats.
    func collectStats(into report: inout StatsReport) {
        report.add(PeerConnectionStats(transport: statistics))
        for (index, channel) in channels.enumerated() {
            report.add(
                DataChannelStats(
                    id: "D\(channel.id.map(String.init) ?? "-\(index)")",
                    label: channel.label,
                    protocol: channel.options.protocol,
                    dataChannelIdentifier: channel.id.map(Int64.init),
                    state: channel.state.rawValue,
                    statistics: channel.statistics,
                    bufferedAmount: Int64(channel.bufferedAmount)
                )
            )
        }
    }
}
