import Foundation
import SwiftRTCCore
import SwiftRTCDTLS
import SwiftRTCICE
import SwiftRTCSDP

extension PeerConnection {
    /// The connection's statistics now (W3C `getStats()`): each part collects its own.
    public func stats() -> StatsReport {
        let now = Date().timeIntervalSince1970
        var report = StatsReport(timestamp: now * 1000)
        guard let transport else { return report }
        var rates = statsRates
        defer { statsRates = rates }
        // Limits hit on remote input: the connection's own counts, its receivers' and senders'.
        var hits: [RemoteInputLimit: Int64] = [:]
        for (limit, count) in limitHits.nonZero { hits[limit, default: 0] += count }
        for transceiver in transceiverList {
            for (limit, count) in transceiver.receiver.limitCounts.hits { hits[limit, default: 0] += count }
            for sender in transceiver.sender.simulcastSenders {
                for (limit, count) in sender.limitHits { hits[limit, default: 0] += count }
            }
        }
        transport.collectStats(
            into: &report,
            iceState: iceState,
            dtlsState: dtlsState,
            dtls: dtlsNegotiated,
            limitHits: hits
        )
        for transceiver in transceiverList {
            for sender in transceiver.sender.simulcastSenders {
                sender.collectStats(into: &report, rates: &rates, now: now, source: transceiver.sender)
            }
            transceiver.receiver.collectStats(into: &report, mid: transceiver.mid, rates: &rates, now: now)
        }
        if dataWanted || dataNegotiated != nil { dataTransport.collectStats(into: &report) }
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
}
