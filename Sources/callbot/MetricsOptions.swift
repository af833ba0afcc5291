import ArgumentParser
import Foundation
import Hummingbird
import Logging
import SwiftRTC
import SwiftRTCSignalingServer

/// `--metrics HOST:PORT`: a bot serves its metrics (``BotMetrics``) for Prometheus while it
/// runs, at `http://HOST:PORT/metrics` (with `/healthz` and `/readyz`).
struct MetricsOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Serve the bot's metrics for Prometheus at http://HOST:PORT/metrics while it runs (PORT 0: a free one; the URL is printed as METRICS URL).",
            valueName: "HOST:PORT"
        )
    )
    var metrics: String?

    func validate() throws {
        guard metrics != nil else { return }
        guard address != nil else {
            throw ValidationError("--metrics \(metrics ?? ""): give HOST:PORT (e.g. 127.0.0.1:9464)")
        }
    }

    /// The host and port of `--metrics`.
    private var address: (host: String, port: Int)? {
        guard let metrics, let colon = metrics.lastIndex(of: ":"),
            let port = Int(metrics[metrics.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        let host = metrics[..<colon].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard !host.isEmpty, !host.contains("/"), !host.contains(" ") else { return nil }
        return (host, port)
    }

    /// Starts serving, when asked to, once the `METRICS URL` line is printed; cancel the task
    /// to stop. Metrics are recorded from here on.
    func start() async throws -> Task<Void, Never>? {
        guard let (host, port) = address else { return nil }
        PrometheusExport.bootstrap()
        let router = Router()
        OperationsRoutes.add(to: router) { true }
        let (listening, listened) = AsyncStream.makeStream(of: String.self)
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                listened.yield("http://\(host.contains(":") ? "[\(host)]" : host):\(bound)/metrics")
                listened.finish()
            },
            logger: Logger(label: "callbot.metrics") { _ in SwiftLogNoOpLogHandler() }
        )
        let server = Task {
            do { try await app.run() } catch { listened.finish() }
        }
        var url: String?
        for await line in listening { url = line }
        guard let url else {
            server.cancel()
            throw CallbotError("--metrics \(host):\(port): could not listen")
        }
        printLine("METRICS \(url)")
        return server
    }
}
