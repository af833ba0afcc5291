import CoreMetrics
import SwiftRTCCore
import SwiftRTCSignaling

/// The door's metrics and the process's descriptors, through swift-metrics (`callbot serve`
/// and `callbot whip-server` export them for Prometheus at `/metrics`).
///
/// | name | type | labels |
/// |---|---|---|
/// | `door_connections` | gauge | (TCP connections open at the door) |
/// | `door_connections_closed_total` | counter | `reason`: ``ServerDoor/Counters``' names |
/// | `process_open_files` | gauge | (descriptors open, at each scrape of `/metrics`) |
/// | `process_open_files_limit` | gauge | (the soft limit, at each scrape) |
enum DoorMetrics {
    static let connections = Gauge(label: "door_connections")

    static func closed(_ reason: ServerDoor.Closing) {
        Counter(label: "door_connections_closed_total", dimensions: [("reason", reason.rawValue)]).increment()
    }

    /// Records the descriptors open and their limit (the headroom is the difference).
    static func recordOpenFiles() {
        Gauge(label: "process_open_files").record(OpenFiles.count)
        Gauge(label: "process_open_files_limit").record(OpenFiles.limit)
    }
}
