import Metrics
import Prometheus
import SwiftRTCSignaling
import SwiftRTCSignalingServer

/// `serve` and `whip-server` record their metrics through swift-metrics into a Prometheus
/// registry, which `/metrics` answers with (``OperationsRoutes``).
enum PrometheusExport {
    /// Bootstraps swift-metrics with swift-prometheus (once per process) and hands the
    /// registry's text to `/metrics`.
    static func bootstrap() {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        OperationsRoutes.exporter = { registry.emitToString() }
    }
}
