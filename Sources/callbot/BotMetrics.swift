import CoreMetrics
import SwiftRTC
import Synchronization

/// What the bots (`call`, `answer`, `load`, `whip`, `whip-server`) record through swift-metrics,
/// exported for Prometheus at `/metrics` (whip-server's port, or `--metrics HOST:PORT`):
///
/// | name | type | labels |
/// |---|---|---|
/// | `bot_calls_active` | gauge | |
/// | `bot_calls_total` | counter | `result`: `connected`, `failed` (the media never connected) |
/// | `bot_packets_sent_total` | counter | `kind`: `audio`, `video` |
/// | `bot_packets_received_total` | counter | `kind` |
/// | `bot_packets_lost_total` | counter | `kind` (RTCP's cumulative loss of what this bot receives) |
/// | `bot_bytes_sent_total` | counter | `kind`: the bitrate is its rate (`rate(...[1m]) * 8`) |
/// | `bot_bytes_received_total` | counter | `kind` |
///
/// Counters follow each connection's stats by differences (each stats sample the bot takes:
/// every second for calls, every `--stats-interval` for WHIP, and at the end), so they never
/// run backwards and cost nothing on the data plane.
enum BotMetrics {
    static let active = Gauge(label: "bot_calls_active")
    private static let activeCount = Atomic<Int>(0)

    /// A call (or WHIP session) began.
    static func callStarted() {
        active.record(activeCount.add(1, ordering: .relaxed).newValue)
    }

    /// A call that began ended; `connected`: its media connected.
    static func callEnded(connected: Bool) {
        active.record(activeCount.subtract(1, ordering: .relaxed).newValue)
        Counter(label: "bot_calls_total", dimensions: [("result", connected ? "connected" : "failed")]).increment()
    }

    /// Follows one connection's stats: each ``update(_:)`` adds what moved since the last.
    final class Connection: Sendable {
        private static let fields: [(type: StatsReport.StatsType, name: String, metric: String)] = [
            (.outboundRTP, "packetsSent", "bot_packets_sent_total"),
            (.inboundRTP, "packetsReceived", "bot_packets_received_total"),
            (.inboundRTP, "packetsLost", "bot_packets_lost_total"),
            (.outboundRTP, "bytesSent", "bot_bytes_sent_total"),
            (.inboundRTP, "bytesReceived", "bot_bytes_received_total"),
        ]
        /// The last totals, by metric and kind.
        private let last = Mutex<[String: Int64]>([:])

        /// Adds the differences between `stats` and the previous sample to the counters.
        func update(_ stats: StatsReport) {
            for kind in ["audio", "video"] {
                for field in Self.fields {
                    guard let value = stats.first(field.type, kind: kind)?.number(field.name), value.isFinite else {
                        continue
                    }
                    // Clamped: a peer's report (packetsLost comes from RTCP) may say anything.
                    let total = Int64(max(0, min(value, 1e15)))
                    let key = field.metric + kind
                    let previous = last.withLock { last in
                        defer { last[key] = max(last[key] ?? 0, total) }
                        return last[key] ?? 0
                    }
                    if total > previous {
                        Counter(label: field.metric, dimensions: [("kind", kind)]).increment(by: total - previous)
                    }
                }
            }
        }
    }
}
