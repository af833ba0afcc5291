import CoreMetrics
import SwiftRTCSignaling

/// The signaling server's metrics, through swift-metrics (exported by whatever backend the
/// process bootstraps: `callbot serve` exports them for Prometheus at `/metrics`). Without a
/// bootstrapped backend they cost nothing.
///
/// | name | type | labels |
/// |---|---|---|
/// | `signaling_connections` | gauge | |
/// | `signaling_logins_total` | counter | `result`: `ok`, `refused` |
/// | `signaling_sessions_started_total` | counter | |
/// | `signaling_messages_routed_total` | counter | `path`: `local` (to a connection here), `instance` (to another instance) |
/// | `signaling_messages_received_total` | counter | `from`: `instance` (routed here by another instance) |
/// | `signaling_deliveries_lost_total` | counter | (routed here for a user no longer here) |
/// | `signaling_connections_revoked_total` | counter | (closed: the user was removed from the users, or their token or password changed) |
/// | `signaling_calls_ended_total` | counter | `result`: the call's end result |
/// | `signaling_limit_refusals_total` | counter | `kind`: the limit (``SignalingServer/Counters``) |
/// | `signaling_call_log_removed_total` | counter | (ended calls past ``CallLogRetention``) |
/// | `signaling_notifications_dropped_total` | counter | (PostgreSQL: messages for other instances dropped, their queue full; ``PostgresSignalingState/maxPendingNotificationBytes``) |
struct SignalingMetrics: Sendable {
    let connections = Gauge(label: "signaling_connections")
    let loginsOK = Counter(label: "signaling_logins_total", dimensions: [("result", "ok")])
    let loginsRefused = Counter(label: "signaling_logins_total", dimensions: [("result", "refused")])
    let sessionsStarted = Counter(label: "signaling_sessions_started_total")
    let routedLocally = Counter(label: "signaling_messages_routed_total", dimensions: [("path", "local")])
    let routedAcross = Counter(label: "signaling_messages_routed_total", dimensions: [("path", "instance")])
    let receivedFromInstances = Counter(label: "signaling_messages_received_total", dimensions: [("from", "instance")])
    let deliveriesLost = Counter(label: "signaling_deliveries_lost_total")
    let callsRemoved = Counter(label: "signaling_call_log_removed_total")
    let connectionsRevoked = Counter(label: "signaling_connections_revoked_total")

    /// A call ended with `result`.
    func callEnded(_ result: CallEndResult) {
        Counter(label: "signaling_calls_ended_total", dimensions: [("result", result.rawValue)]).increment()
    }

    private let refusals = Dictionary(
        uniqueKeysWithValues: LimitCounters.Kind.allCases.map {
            ($0, Counter(label: "signaling_limit_refusals_total", dimensions: [("kind", $0.name)]))
        }
    )

    /// A limit refused something.
    func refused(_ kind: LimitCounters.Kind) {
        refusals[kind]?.increment()
    }
}
