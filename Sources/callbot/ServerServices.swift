import Logging
import ServiceLifecycle
import SwiftRTC

/// How `serve` and `whip-server` run their server: a ServiceLifecycle `ServiceGroup` that
/// SIGTERM and SIGINT shut down gracefully (the server drains, then returns), optionally
/// ended after a time limit the same way, and optionally reloading on SIGHUP.
enum ServerServices {
    /// A service whose work is a closure: the server's `run(onListening:)`, which prints the
    /// `READY URL` line.
    struct Run: Service {
        let body: @Sendable () async throws -> Void
        func run() async throws { try await body() }
    }

    /// Ends the group gracefully after `limit`.
    struct TimeLimit: Service {
        let limit: Duration
        func run() async throws {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: limit) }
        }
    }

    /// Runs `server` until SIGTERM or SIGINT (or `limit`) has drained it, or it fails; with
    /// `hangUps`, runs `reload` on each SIGHUP meanwhile.
    static func run(
        _ server: @escaping @Sendable () async throws -> Void,
        limit: Duration? = nil,
        hangUps: HangUpSignals? = nil,
        reload: @escaping @Sendable () async -> Void = {}
    ) async throws {
        var services = [ServiceGroupConfiguration.ServiceConfiguration(service: Run(body: server))]
        if let limit {
            services.append(
                .init(service: TimeLimit(limit: limit), successTerminationBehavior: .gracefullyShutdownGroup)
            )
        }
        if let hangUps {
            services.append(
                .init(
                    service: ReloadOnHangUp(signals: hangUps, reload: reload),
                    successTerminationBehavior: .gracefullyShutdownGroup
                )
            )
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services,
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: SwiftRTCLogging.logger("callbot.lifecycle")
            )
        )
        try await group.run()
    }
}
