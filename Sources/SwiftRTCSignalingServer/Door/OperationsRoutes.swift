import Hummingbird
import SwiftRTCCore
import SwiftRTCSignaling
import Synchronization

/// The operations endpoints the HTTP servers of SwiftRTC (the signaling server, the WHIP
/// endpoint) answer beside their own paths:
///
/// - `GET /healthz`: `200 ok` while the process serves (liveness);
/// - `GET /readyz`: `200 ready` when it can do its work (the signaling server: its database was
///   reachable at its last heartbeat and it listens for other instances), else `503`
///   (readiness). Anyone may ask: `ready` must be cheap (no query per request);
/// - `GET /metrics`: the metrics in Prometheus' text format, once a process has set
///   ``exporter`` (`callbot` bootstraps swift-metrics with swift-prometheus and sets it); `404`
///   before.
public enum OperationsRoutes {
    private static let metrics = Mutex<Callback<Void, String>?>(nil)

    /// What `/metrics` answers: the text of the process's metrics registry.
    public static var exporter: (@Sendable () -> String)? {
        get {
            guard let metrics = metrics.withLock({ $0 }) else { return nil }
            return { metrics() }
        }
        set {
            let callback = newValue.map { text in Callback<Void, String> { _ in text() } }
            metrics.withLock { $0 = callback }
        }
    }

    /// Adds the three routes; `ready` answers `/readyz`.
    public static func add<Context: RequestContext>(
        to router: Router<Context>,
        ready: @escaping @Sendable () async -> Bool
    ) {
        router.get("healthz") { _, _ in Self.text(.ok, "ok\n") }
        router.get("readyz") { _, _ in
            await ready() ? Self.text(.ok, "ready\n") : Self.text(.serviceUnavailable, "not ready\n")
        }
        router.get("metrics") { _, _ in
            guard let exporter = Self.exporter else {
                return Self.text(.notFound, "no metrics exporter in this process\n")
            }
            DoorMetrics.recordOpenFiles()
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: exporter()))
            )
        }
    }

    private static func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/plain; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }
}
