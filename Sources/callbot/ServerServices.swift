import Foundation
import Logging
import ServiceLifecycle
import SwiftRTC

/// How `serve` and `whip-server` run their server: a ServiceLifecycle `ServiceGroup` that
/// SIGTERM and SIGINT shut down gracefully (the server drains, then returns), optionally
/// ended after a time limit the same way, and optionally reloading on SIGHUP. A drain that
/// hangs (a database that no longer answers, a peer that never lets go) has a deadline: the
/// server's work is cancelled then, and the process exits ``forcedExitGrace`` later whatever
/// still runs, so that a service manager's stop never waits forever.
enum ServerServices {
    /// Default of `--shutdown-timeout`: 30 s to drain (systemd waits 90 s before SIGKILL).
    static let defaultShutdownDeadline: Duration = .seconds(30)
    /// From the cancellation at the deadline to the forced exit.
    static let forcedExitGrace: Duration = .seconds(5)

    /// Once graceful shutdown has begun, starts a thread that ends the process (status 1)
    /// `deadline` + ``forcedExitGrace`` later, unless it has ended by then.
    struct ShutdownDeadline: Service {
        let deadline: Duration
        func run() async throws {
            // Returns when the group shuts down gracefully; throws when it ends otherwise.
            do { try await gracefulShutdown() } catch { return }
            let limit = deadline + ServerServices.forcedExitGrace
            let logger = SwiftRTCLogging.logger("callbot.lifecycle")
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: limit.seconds)
                logger.error("shutdown: still draining \(limit) after it began: exiting now")
                fflush(nil)
                _exit(1)
            }
        }
    }

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

    /// Runs `server` until SIGTERM or SIGINT (or `limit`) has drained it, or it fails, or
    /// `shutdownDeadline` after the drain began; with `hangUps`, runs `reload` on each SIGHUP
    /// meanwhile.
    static func run(
        _ server: @escaping @Sendable () async throws -> Void,
        limit: Duration? = nil,
        shutdownDeadline: Duration,
        hangUps: HangUpSignals? = nil,
        reload: @escaping @Sendable () async -> Void = {}
    ) async throws {
        var services = [
            ServiceGroupConfiguration.ServiceConfiguration(service: Run(body: server)),
            .init(service: ShutdownDeadline(deadline: shutdownDeadline), successTerminationBehavior: .ignore),
        ]
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
        var configuration = ServiceGroupConfiguration(
            services: services,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: SwiftRTCLogging.logger("callbot.lifecycle")
        )
        configuration.maximumGracefulShutdownDuration = shutdownDeadline
        try await ServiceGroup(configuration: configuration).run()
    }
}
