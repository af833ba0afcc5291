import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import SwiftRTCCore
import SwiftRTCSignaling
import Synchronization

/// The door of a server that faces strangers (the signaling server and the WHIP endpoint):
/// every TCP connection is counted from `accept`, before TLS or HTTP, and closed when it
/// sits there doing nothing.
///
/// - Over ``Configuration/maxConnections`` open connections (lowered to fit the process's
///   open-file limit, see ``connectionLimit``), or ``Configuration/maxConnectionsPerAddress``
///   from one client address (an IPv4 address or an IPv6 /64), a new connection is closed at
///   once.
/// - A connection that has not sent the head of its first request (TLS handshake included)
///   within ``Configuration/requestTimeout`` is closed.
/// - A connection from which no byte came for ``Configuration/idleTimeout`` is closed (a live
///   WebSocket answers the server's pings well within it).
/// - A request body (a WHIP offer) must arrive within ``Configuration/requestTimeout`` too.
///
/// Each closing is counted (``counters``, and `swiftrtc_door_closed_total` in `/metrics`) and
/// logged with the client's address, at most once per 10 s per kind. So a stranger with no
/// account holds at most a few descriptors for a few seconds, and the server keeps accepting.
public final class ServerDoor: Sendable {
    /// The door's limits; every one has a default fit for a server on the internet.
    public struct Configuration: Sendable, Hashable {
        /// TCP connections open at once (``connectionLimit`` may be lower).
        public var maxConnections: Int
        /// TCP connections open at once from one client address.
        public var maxConnectionsPerAddress: Int
        /// From `accept` to the head of the first request, TLS handshake included.
        public var requestTimeout: Duration
        /// The longest a connection may stay silent (no byte from the client).
        public var idleTimeout: Duration

        /// Default of ``maxConnections``: 4096.
        public static let defaultMaxConnections = 4_096
        /// Default of ``maxConnectionsPerAddress``: 64.
        public static let defaultMaxConnectionsPerAddress = 64
        /// Default of ``requestTimeout``: 10 s.
        public static let defaultRequestTimeout = Duration.seconds(10)
        /// Default of ``idleTimeout``: 90 s (three of the signaling server's 30 s pings).
        public static let defaultIdleTimeout = Duration.seconds(90)

        /// A configuration; the limits are raised to at least 1 and the times to 100 ms.
        public init(
            maxConnections: Int = defaultMaxConnections,
            maxConnectionsPerAddress: Int = defaultMaxConnectionsPerAddress,
            requestTimeout: Duration = defaultRequestTimeout,
            idleTimeout: Duration = defaultIdleTimeout
        ) {
            self.maxConnections = max(1, maxConnections)
            self.maxConnectionsPerAddress = max(1, maxConnectionsPerAddress)
            self.requestTimeout = max(.milliseconds(100), requestTimeout)
            self.idleTimeout = max(.milliseconds(100), idleTimeout)
        }
    }

    /// How many connections the door closed, by reason, since the server started.
    public struct Counters: Sendable, Hashable, CustomStringConvertible {
        /// Refused at `accept`: ``ServerDoor/connectionLimit`` connections were open.
        public var overTotalLimit = 0
        /// Refused at `accept`: ``Configuration/maxConnectionsPerAddress`` were open from its address.
        public var overAddressLimit = 0
        /// Closed without a request within ``Configuration/requestTimeout``.
        public var withoutRequest = 0
        /// Closed after ``Configuration/idleTimeout`` of silence.
        public var idle = 0
        /// Requests whose body did not arrive within ``Configuration/requestTimeout`` (answered
        /// `408` and closed).
        public var slowBody = 0

        /// Every counter at 0.
        public init() {}

        /// `name=count` for every counter.
        public var description: String {
            "overTotalLimit=\(overTotalLimit) overAddressLimit=\(overAddressLimit) withoutRequest=\(withoutRequest) idle=\(idle) slowBody=\(slowBody)"
        }
    }

    /// Why the door closed a connection.
    enum Closing: String, CaseIterable, Sendable {
        case overTotalLimit, overAddressLimit, withoutRequest, idle, slowBody

        var keyPath: WritableKeyPath<Counters, Int> {
            switch self {
            case .overTotalLimit: \.overTotalLimit
            case .overAddressLimit: \.overAddressLimit
            case .withoutRequest: \.withoutRequest
            case .idle: \.idle
            case .slowBody: \.slowBody
            }
        }
    }

    /// Descriptors kept for what is not a client's connection (ICE agents, recordings, the
    /// database, logs) when the connection limit is fitted to the open-file limit.
    public static let reservedFiles = 256

    /// The door's limits.
    public let configuration: Configuration
    /// The connection limit in force: ``Configuration/maxConnections``, or fewer when the
    /// open-file limit (raised to its hard limit when the door is made) leaves less room
    /// after ``reservedFiles``.
    public let connectionLimit: Int
    /// The open-file limit in force when the door was made.
    public let openFileLimit: Int

    private struct State {
        var open = 0
        var byAddress: [String: Int] = [:]
        var counters = Counters()
    }

    private let state = Mutex(State())
    private let logThrottle = LogThrottle<Closing>()
    private let logger: Logger
    private let name: String

    /// A door for the server called `name` in log lines; raises the process's soft open-file
    /// limit to its hard limit.
    public init(configuration: Configuration = Configuration(), name: String) {
        self.configuration = configuration
        self.name = name
        logger = SwiftRTCLogging.logger(name)
        openFileLimit = OpenFiles.raiseLimit()
        connectionLimit = min(configuration.maxConnections, max(16, openFileLimit - Self.reservedFiles))
        if connectionLimit < configuration.maxConnections {
            logger.warning(
                "\(name): at most \(connectionLimit) connections: the open-file limit is \(openFileLimit) (raise it, e.g. LimitNOFILE= in the systemd unit)"
            )
        }
    }

    /// What the door closed so far.
    public var counters: Counters { state.withLock { $0.counters } }

    /// TCP connections open now.
    public var openConnections: Int { state.withLock { $0.open } }

    /// Hummingbird's server for the child channels `channel` makes, behind TLS with `tls`,
    /// behind this door.
    package func serverBuilder(
        tls: TLSIdentity?,
        _ channel: @escaping @Sendable (@escaping HTTPChannelHandler.Responder) -> any ServerChildChannel
    ) throws -> HTTPServerBuilder {
        let tlsConfiguration = tls?.serverConfiguration
        // A wrong certificate or key is an error before the server listens.
        if let tlsConfiguration { _ = try NIOSSLContext(configuration: tlsConfiguration) }
        return HTTPServerBuilder { [self] responder in
            let base = channel(responder)
            guard let tlsConfiguration else { return behind(base) }
            return try secured(base, tlsConfiguration)
        }
    }

    private func behind<Base: ServerChildChannel>(_ base: Base) -> any ServerChildChannel {
        DoorChannel(door: self, base: base)
    }

    private func secured<Base: ServerChildChannel>(
        _ base: Base,
        _ tlsConfiguration: TLSConfiguration
    ) throws -> any ServerChildChannel {
        DoorChannel(door: self, base: try TLSChannel(base, tlsConfiguration: tlsConfiguration))
    }

    /// Tells the door of `channel` that the head of a request came in on it (the servers'
    /// request contexts call this when they are made).
    package static func requestStarted(on channel: any Channel) {
        channel.pipeline.fireUserInboundEventTriggered(RequestStarted())
    }

    /// The event ``requestStarted(on:)`` sends down a connection's pipeline.
    struct RequestStarted: Sendable {}

    // MARK: Counting

    /// Takes a place for a connection from `address`, or counts and logs its refusal.
    func admit(_ address: String) -> Bool {
        let refusal: Closing? = state.withLock { state in
            guard state.open < connectionLimit else { return .overTotalLimit }
            let fromAddress = state.byAddress[address, default: 0]
            guard fromAddress < configuration.maxConnectionsPerAddress else { return .overAddressLimit }
            state.open += 1
            state.byAddress[address] = fromAddress + 1
            return nil
        }
        guard let refusal else { return true }
        closed(address, refusal)
        return false
    }

    /// Gives back the place of a connection from `address`.
    func release(_ address: String) {
        state.withLock { state in
            state.open -= 1
            if let count = state.byAddress[address], count > 1 {
                state.byAddress[address] = count - 1
            } else {
                state.byAddress[address] = nil
            }
        }
    }

    /// Counts a closing (in ``counters`` and the metrics) and logs it, at most once per 10 s
    /// per kind (the next line says how many were not logged).
    func closed(_ address: String, _ reason: Closing, now: ContinuousClock.Instant = .now) {
        DoorMetrics.closed(reason)
        state.withLock { $0.counters[keyPath: reason.keyPath] += 1 }
        guard let unlogged = logThrottle.admit(reason, now: now) else { return }
        let more = logThrottle.more(unlogged)
        let what: String =
            switch reason {
            case .overTotalLimit: "refused: \(connectionLimit) connections open, the limit"
            case .overAddressLimit:
                "refused: \(configuration.maxConnectionsPerAddress) connections open from there, the limit"
            case .withoutRequest: "closed: no request within \(configuration.requestTimeout)"
            case .idle: "closed: silent for \(configuration.idleTimeout)"
            case .slowBody: "closed: a request body not in within \(configuration.requestTimeout)"
            }
        logger.notice("\(name): a connection from \(address) \(what)\(more)")
    }
}
