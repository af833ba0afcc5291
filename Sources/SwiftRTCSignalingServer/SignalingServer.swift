import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle
import SwiftRTCCore
import SwiftRTCSignaling
import Synchronization

/// The embedded SwiftRTC signaling server: a WebSocket endpoint (Hummingbird) that speaks the
/// JSON wire protocol of `SwiftRTCSignaling` (`SignalingMessage`, one message per text frame),
/// authenticates users, routes messages between them by user id, enforces who may take part in
/// which call session, and keeps the call log (``CallLogStore``). See README.md beside this file.
///
/// A connection:
/// 1. opens a WebSocket to `ws://HOST:PORT/signaling`; over ``Configuration/maxConnections``
///    open connections, or ``Configuration/maxConnectionsPerAddress`` from its address, it gets
///    an `error` (429) and is closed (1008);
/// 2. sends `{"type":"hello","token":"…"}` within ``Configuration/helloTimeout``; the server
///    answers `welcome` with the user id the token names (``SignalingCredentials``), or an
///    `error` (401) and closes (1008); with a users file, a hello that finds
///    ``Configuration/maxConcurrentPasswordChecks`` password checks running gets an `error`
///    (429) at once and is closed (1008);
/// 3. sends messages with `to` (recipients) and `session`; the server sets `from` to the
///    connection's user (a message whose `from` names someone else is refused) and forwards
///    each message to every recipient's connection, or answers `error`:
///    - 400 malformed: not JSON, unknown `type`, missing or ill-typed field, binary frame,
///      server-only type; 413: over ``SignalingLimits/maxMessageBytes``; 429-like flood
///      refusals use 413's neighbour code `tooManyMessages` (see ``Configuration/messagesPerSecond``);
///    - 403 forbidden: not invited to that session, no longer in it, recipient not in it,
///      acting as another user, `call` naming another initiator;
///    - 409 conflict: a session id used by another caller, or used before (the call log keeps
///      every call's id: a record is never replaced);
///    - 404 recipient unavailable: a recipient is not connected (the message still counts for
///      the session);
/// 4. may send `callLogQuery` (role, result, limit) and gets `callLog` with its own calls only.
///
/// Bad input never stops the server: every message is parsed totally (numbers are range-checked
/// as they are decoded), each connection has a frame limit (``Configuration/maxFrameBytes``: a
/// larger frame closes that connection with 1009), a message limit (error reply), a rate limit
/// and a bounded send queue. Every refusal for a limit is counted (``counters``) and logged at
/// most once per 10 s per kind.
///
/// On the same port, `GET /` serves the web client (`WebClient/`: a page in which a person
/// logs in and calls, or answers, users and bots; see ``WebClientAssets``), and with
/// ``Configuration/conferenceJanusURL`` `GET /conference` its conference page (a Janus
/// VideoRoom room with bots and other browsers).
///
/// ``run(onListening:)`` serves until ``shutdown(grace:)`` (graceful: ongoing calls are written
/// to the log as ended, every connection is closed with 1001) or until its task is cancelled.
/// The server is a ServiceLifecycle `Service`: in a `ServiceGroup` with SIGTERM among its
/// graceful-shutdown signals, SIGTERM drains it.
public final class SignalingServer: Sendable {
    /// Where and how it listens (the path normalised to `/segment`).
    public let configuration: Configuration
    /// The call log the server writes.
    public var callLog: any CallLogStore { hub.callLog }
    /// The server's door: what it refused and closed before a WebSocket (``ServerDoor/counters``).
    public let door: ServerDoor
    let hub: SignalingHub
    private let storage: SignalingStorage
    private let shutdownRequest: AsyncStream<Void>
    private let shutdownContinuation: AsyncStream<Void>.Continuation
    private let logger = SwiftRTCLogging.logger("signaling")

    /// A server for the users of `credentials` that keeps its call log and sessions in
    /// `storage` (by default in memory: the server runs alone).
    public init(
        configuration: Configuration = Configuration(),
        credentials: SignalingCredentials,
        storage: SignalingStorage = .inMemory()
    ) {
        var configuration = configuration
        configuration.path = "/" + configuration.path.split(separator: "/").joined(separator: "/")
        self.configuration = configuration
        self.storage = storage
        var doorConfiguration = configuration.door
        doorConfiguration.maxConnections = max(doorConfiguration.maxConnections, configuration.maxConnections)
        doorConfiguration.maxConnectionsPerAddress = max(
            doorConfiguration.maxConnectionsPerAddress,
            configuration.maxConnectionsPerAddress
        )
        door = ServerDoor(configuration: doorConfiguration, name: "signaling")
        hub = SignalingHub(configuration: configuration, credentials: credentials, storage: storage)
        (shutdownRequest, shutdownContinuation) = AsyncStream.makeStream(
            of: Void.self,
            bufferingPolicy: .bufferingNewest(1)
        )
    }

    /// Who may log in now: the credentials given to ``init(configuration:credentials:storage:)``,
    /// or the last ones given to ``replaceCredentials(_:)``.
    public var credentials: SignalingCredentials { hub.credentials }

    /// Makes `credentials` the users who may log in from now on (a tokens or users file read
    /// again): new logins are checked against them, and the connections of users they no
    /// longer let in as before (removed, or another token or password) are closed: an `error`
    /// (401) saying why, then 1008 with the reason `removed from the server's users` or
    /// `credentials changed: log in again`; logged, counted
    /// (`signaling_connections_revoked_total`). The others stay. Returns once those closes
    /// are queued. Sharing PostgreSQL, this instance alone: store them with
    /// ``PostgresStorage/storeCredentials(_:modified:)`` for every instance (each then
    /// replaces its own the same way).
    public func replaceCredentials(_ credentials: SignalingCredentials) async {
        await hub.replaceCredentials(credentials)
    }

    /// Users with an authenticated connection, sorted.
    public var connectedUsers: [String] {
        get async { await hub.connectedUsers }
    }

    /// How often each limit refused something so far.
    public var counters: Counters { hub.limits.snapshot }

    /// Serves until ``shutdown(grace:)`` or cancellation. `onListening` gets the WebSocket URL (with
    /// the port actually bound) once the server accepts connections. Before it listens, the
    /// calls an earlier run left in progress (a killed server) are logged as `connection_lost`
    /// (``CallLogStore/closeInterruptedCalls()``).
    /// - Throws: ``CallLogError`` when the call log cannot be written, or Hummingbird's error
    ///   when it cannot listen.
    ///
    /// In a ServiceLifecycle `ServiceGroup`, a graceful shutdown (SIGTERM) runs ``shutdown(grace:)``:
    /// the server drains, then returns.
    public func run(onListening: @escaping @Sendable (URL) async -> Void) async throws {
        let hub = self.hub
        let configuration = self.configuration
        let webSocketRouter = Router(context: SignalingRequestContext.self)
        webSocketRouter.ws(RouterPath(configuration.path)) { inbound, outbound, context in
            await SignalingConnection(hub: hub, configuration: configuration)
                .serve(inbound: inbound, outbound: outbound, clientAddress: context.requestContext.clientAddress)
        }
        let router = httpRouter()
        let state = hub.state
        let httpLogger = HTTPServerLogger.make("signaling.http")
        let host = configuration.host
        let path = configuration.path
        let scheme = configuration.tls == nil ? "ws" : "wss"
        let webSocketResponder = webSocketRouter.buildResponder()
        let channelConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
            ws: WebSocketServerConfiguration(
                maxFrameSize: configuration.maxFrameBytes,
                autoPing: .enabled(timePeriod: .seconds(30)),
                closeTimeout: .seconds(2),
                validateUTF8: true
            )
        )
        let app = Application(
            router: router,
            server: try door.serverBuilder(tls: configuration.tls) { responder in
                HTTP1WebSocketUpgradeChannel(
                    responder: responder,
                    webSocketResponder: webSocketResponder,
                    configuration: channelConfiguration
                )
            },
            configuration: ApplicationConfiguration(address: .hostname(host, port: configuration.port)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                guard let url = URL(listeningOn: host, port: port, scheme: scheme, path: path) else { return }
                await onListening(url)
            },
            logger: httpLogger
        )
        try await prepareStorage()
        let storage = self.storage
        let logger = self.logger
        try await withGracefulShutdownHandler {
            try await serve(app, state: state, storage: storage, logger: logger)
        } onGracefulShutdown: {
            Task { await self.shutdown() }
        }
    }

    /// The router of plain HTTP requests: at the WebSocket's path, what the endpoint is; the
    /// web client at `/`; and `/healthz`, `/readyz`, `/metrics`.
    private func httpRouter() -> Router<SignalingRequestContext> {
        let hub = self.hub
        let configuration = self.configuration
        // Plain HTTP (no upgrade) on the same path says what the endpoint is.
        let router = Router(context: SignalingRequestContext.self)
        router.get(RouterPath(configuration.path)) { _, _ in
            Response(
                status: .upgradeRequired,
                headers: [.upgrade: "websocket", .contentType: "text/plain; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: "SwiftRTC signaling: open a WebSocket here\n"))
            )
        }
        // The web client, at `/`, on the WebSocket's origin.
        let webClient = WebClientAssets.load(conferenceJanusURL: configuration.conferenceJanusURL)
        if webClient.assets.isEmpty {
            logger.warning("signaling: the web client's files are missing; nothing is served at /")
        }
        webClient.addRoutes(to: router)
        // /healthz, /readyz (the shared state reachable, as the last heartbeat found it: no
        // query per request), /metrics.
        let state = hub.state
        OperationsRoutes.add(to: router) {
            guard await hub.isTakingConnections else { return false }
            return await state.isReady()
        }
        return router
    }

    /// Readies the storage before the server listens: migrates the PostgreSQL schema, or, alone,
    /// logs the calls an earlier run left in progress as ended.
    private func prepareStorage() async throws {
        if let postgres = storage.service {
            try await postgres.migrate()
        } else {
            // Calls a killed server left in progress end now, as connection_lost. (Instances
            // sharing a database never do this: the calls of one that died go on elsewhere.)
            let interrupted = try await hub.callLog.closeInterruptedCalls()
            if interrupted > 0 {
                logger.warning(
                    "signaling: an earlier run left \(interrupted) calls in progress: logged as connection_lost"
                )
            }
        }
    }

    /// The HTTP server, the shared state's deliveries and the sweep, until a shutdown request
    /// (or the HTTP server failing).
    private func serve(
        _ app: some ApplicationProtocol,
        state: any SignalingState,
        storage: SignalingStorage,
        logger: Logger
    ) async throws {
        let hub = self.hub
        let shutdownRequest = self.shutdownRequest
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // The HTTP server stops when the drain is done, not at the signal: run outside
                // the graceful-shutdown context (Hummingbird would stop listening at once).
                let http = Task.detached { try await app.run() }
                try await withTaskCancellationHandler {
                    try await http.value
                } onCancel: {
                    http.cancel()
                }
            }
            group.addTask {
                try await state.run { delivery in
                    guard case .credentialsChanged = delivery else { return await hub.delivered(delivery) }
                    do {
                        if let credentials = try await storage.service?.loadCredentials() {
                            await hub.replaceCredentials(credentials)
                        }
                    } catch {
                        logger.error("signaling: \(error)")
                    }
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    await hub.sweep()
                    try? await Task.sleep(for: .milliseconds(250))
                }
            }
            group.addTask {
                for await _ in shutdownRequest { return }
            }
            // The first to end (a shutdown request, or the server failing to listen) ends all.
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Stops gracefully: no new connections, every connection closed (1001, going away) and
    /// given up to `grace` to finish; then ``run(onListening:)`` returns.
    ///
    /// Alone, the server first logs the ongoing calls as ended (`connection_lost`, or
    /// `canceled` when unanswered). Sharing a PostgreSQL database, it drains instead: the close
    /// tells its clients to move to another instance, where their calls go on; it waits up to
    /// ``Configuration/reconnectGrace`` for them to log in there, and finishes the call
    /// records of those that did not.
    public func shutdown(grace: Duration = .seconds(2)) async {
        logger.info("signaling: shutting down")
        let handedOver = await hub.shutdown()
        let deadline = ContinuousClock.now + grace
        while await hub.connectionCount > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if !handedOver.isEmpty {
            // Sharing a database: the users move to other instances; those that have not
            // within the reconnect grace leave their calls, and this instance finishes the
            // call records.
            let handOverDeadline = ContinuousClock.now + configuration.reconnectGrace
            while ContinuousClock.now < handOverDeadline, await hub.awaitingHandOver(handedOver) > 0 {
                try? await Task.sleep(for: .milliseconds(250))
            }
            await hub.finishHandOver(handedOver)
        }
        shutdownContinuation.yield()
    }
}

extension SignalingServer: Service {
    /// Serves as a service of a ServiceLifecycle `ServiceGroup` (``run(onListening:)`` without
    /// a listener): a graceful shutdown of the group drains the server.
    public func run() async throws {
        try await run(onListening: { _ in })
    }
}
