import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle
import SwiftRTCCore
import SwiftRTCSignaling
import Synchronization

extension SignalingServer {
    /// Where and how the server listens, and its limits.
    public struct Configuration: Sendable {
        /// The address to listen on (default 127.0.0.1).
        public var host: String
        /// The TCP port; 0 picks a free one (``run(onListening:)`` reports the URL).
        public var port: Int
        /// The WebSocket path.
        public var path: String
        /// The largest WebSocket frame; a larger one closes the connection (1009). Hummingbird
        /// buffers a whole frame before the server sees it: this bounds a connection's memory.
        public var maxFrameBytes: Int
        /// Messages per second a connection may send (refill rate of its token bucket).
        public var messagesPerSecond: Double
        /// Messages a connection may send at once.
        public var messageBurst: Int
        /// Messages waiting to be written to one connection; more are dropped (and the sender told).
        public var sendQueueLimit: Int
        /// Bytes waiting to be written to one connection; more are dropped (and the sender told).
        public var sendQueueBytes: Int = defaultSendQueueBytes
        /// Time a new connection has to authenticate.
        public var helloTimeout: Duration
        /// An unanswered call ends as `no_answer` after this long (clients usually give up first).
        public var ringTimeout: Duration
        /// How long an ended session is remembered (late candidates and hang-ups still route).
        public var endedSessionRetention: Duration
        /// Calls a user may have open as initiator at once.
        public var maxOpenCallsPerUser: Int
        /// WebSocket connections open at once, authenticated or not; one more gets an `error`
        /// (429) and is closed (1008). Keep it under the process's file descriptor limit.
        public var maxConnections: Int
        /// Connections open at once from one client address (an IPv4 address, or an IPv6 /64);
        /// one more gets an `error` (429) and is closed (1008).
        public var maxConnectionsPerAddress: Int
        /// Password checks (``SignalingCredentials/users(_:)``: PBKDF2, about 0.2 s of a core
        /// each) running at once; a `hello` that finds them all busy gets an `error` (429) and
        /// its connection is closed (1008), so that strangers cannot occupy every core.
        public var maxConcurrentPasswordChecks: Int
        /// When set, the server serves `wss://` with this certificate and key (else plain
        /// `ws://`: put it behind a TLS proxy, or keep it on loopback).
        public var tls: TLSIdentity? = nil
        /// The TCP connections the server takes, and how long they may stay without a request
        /// or silent (``ServerDoor``): counted before TLS and HTTP, from `accept`. Its
        /// connection limits are raised to ``maxConnections`` and ``maxConnectionsPerAddress``
        /// where those are higher (the door never refuses what the WebSocket limits allow).
        public var door = ServerDoor.Configuration()
        /// How long a user whose connection dropped keeps their place in their calls: a client
        /// that logs in again within it (to this server, or to another instance on the same
        /// database) is back in its calls; after it, they leave them as `connection_lost`.
        public var reconnectGrace: Duration = defaultReconnectGrace
        /// Calls one user may start in a minute (a third of them at once); one more is refused
        /// (`error` 429) and counted. A call re-sent for its session does not count.
        public var callsPerMinutePerUser: Int = defaultCallsPerMinutePerUser
        /// How long and how many ended calls the call log keeps (``CallLogRetention``).
        public var callLogRetention = CallLogRetention()
        /// The Janus WebSocket API (`ws://` or `wss://`) whose VideoRoom rooms the web client's
        /// conference page (`/conference`) joins; without it, that page is not served. The
        /// browser connects to it directly: it must be reachable from there, and the room's
        /// own protection (its PIN, Janus's token authentication) is Janus's.
        public var conferenceJanusURL: URL? = nil

        /// Default of ``callsPerMinutePerUser``: 60.
        public static let defaultCallsPerMinutePerUser = 60

        /// Default of ``reconnectGrace``: 15 s.
        public static let defaultReconnectGrace: Duration = .seconds(15)

        /// Default of ``maxFrameBytes``: twice ``SignalingLimits/maxMessageBytes`` (128 KiB), so
        /// that a message somewhat over the limit is answered (413) rather than cut off.
        public static let defaultMaxFrameBytes = 2 * SignalingLimits.maxMessageBytes
        /// Default of ``sendQueueBytes``: 1 MiB (16 of the largest messages).
        public static let defaultSendQueueBytes = 1 << 20
        /// Default of ``maxConnections``: 1000.
        public static let defaultMaxConnections = 1_000
        /// Default of ``maxConnectionsPerAddress``: 32.
        public static let defaultMaxConnectionsPerAddress = 32
        /// Default of ``maxConcurrentPasswordChecks``: half the cores this process may use, at
        /// least 1.
        public static let defaultMaxConcurrentPasswordChecks = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)

        /// A configuration; every limit has a default fit for bots and tests.
        public init(
            host: String = "127.0.0.1",
            port: Int = 0,
            path: String = "/signaling",
            maxFrameBytes: Int = defaultMaxFrameBytes,
            messagesPerSecond: Double = 100,
            messageBurst: Int = 200,
            sendQueueLimit: Int = 512,
            helloTimeout: Duration = .seconds(10),
            ringTimeout: Duration = .seconds(90),
            endedSessionRetention: Duration = .seconds(60),
            maxOpenCallsPerUser: Int = 16,
            maxConnections: Int = defaultMaxConnections,
            maxConnectionsPerAddress: Int = defaultMaxConnectionsPerAddress,
            maxConcurrentPasswordChecks: Int = defaultMaxConcurrentPasswordChecks
        ) {
            self.host = host
            self.port = port
            self.path = path
            self.maxFrameBytes = maxFrameBytes
            self.messagesPerSecond = messagesPerSecond
            self.messageBurst = messageBurst
            self.sendQueueLimit = sendQueueLimit
            self.helloTimeout = helloTimeout
            self.ringTimeout = ringTimeout
            self.endedSessionRetention = endedSessionRetention
            self.maxOpenCallsPerUser = maxOpenCallsPerUser
            self.maxConnections = maxConnections
            self.maxConnectionsPerAddress = maxConnectionsPerAddress
            self.maxConcurrentPasswordChecks = maxConcurrentPasswordChecks
        }
    }
}
