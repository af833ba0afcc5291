import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle
import SwiftRTCCore
import SwiftRTCSDP
import SwiftRTCSignaling
import Synchronization

/// A WHIP endpoint (RFC 9725 §4.2) over Hummingbird's HTTP/1.1 server.
///
/// - `POST <path>` with an `application/sdp` offer calls the answerer and replies `201 Created`
///   with its answer (`Content-Type: application/sdp`) and `Location: <path>/<id>`;
///   another content type is `415`, an empty or non-SDP body `400`, a body over
///   ``Configuration/maxOfferBytes`` `413` (refused from its `Content-Length`, or as soon as
///   more arrived: the body is never read past the limit), a ``WHIPOfferRejected`` from the
///   answerer `400` or `422`, any other error of the answerer `500`.
/// - With ``Configuration/maxSessions`` sessions open (or being answered) a further offer is
///   `503 Service Unavailable`, with ``Configuration/maxSessionsPerAddress`` of them from the
///   same client address `429 Too Many Requests`; both carry `Retry-After`.
/// - A session that is not connected within ``Configuration/connectTimeout`` of its creation,
///   whose connection failed, or that has lasted ``Configuration/maxSessionDuration``, is
///   ended and forgotten (a `DELETE` for it then gets `404`).
/// - `DELETE <path>/<id>` ends that session and replies `200 OK`; an unknown id is `404`.
/// - `PATCH <path>/<id>` with an `application/trickle-ice-sdpfrag` body (RFC 9725 §4.3):
///   with `If-Match` the session's `ETag`, trickled candidates for the session
///   (``WHIPEndpointSession/addCandidates(_:)``), `204`; with `If-Match: *` and new
///   credentials, an ICE restart (``WHIPEndpointSession/restartICE(_:)``, at most
///   ``Configuration/maxICERestarts`` per session, then `429`), `200` with this side's new
///   fragment and a new `ETag`. Without `If-Match` `428`, another tag `412`, a body over
///   ``maxFragmentBytes`` `413`, one that does not parse `400`; a session that takes no
///   `PATCH` gives `405`.
/// - `OPTIONS <path>` replies `204` with `Accept-Post: application/sdp`, and the
///   ``Configuration/iceServers`` as `Link` headers (RFC 9725 §4.6; the `201` carries them too).
/// - CORS, when ``Configuration/bearerToken`` is set: a preflight from a page on another
///   origin is answered without a token, and every reply on the endpoint's paths to such a
///   page carries `Access-Control-Allow-Origin: *` and exposes `Location`
///   (`WHIPCORSMiddleware`), so that a page that has the token can publish with `fetch`.
/// - With ``Configuration/bearerToken`` set, requests without that token are `401` (the token
///   is compared in constant time and never logged).
/// - With ``Configuration/tls`` set it serves `https://` only.
///
/// Each refusal and each session the endpoint ends itself is counted in ``stats``.
///
/// Given a WHEP answerer too, it also serves WHEP (the WebRTC-HTTP Egress Protocol,
/// draft-ietf-wish-whep) at ``Configuration/whepPath``: a viewer POSTs a receive-only offer
/// in the same exchange, gets the answer of a session that sends it media, and `DELETE`s
/// `<whepPath>/<id>` to end it. Viewers count against the same limits as publishers.
///
/// The endpoint knows nothing of SDP or peer connections: the answerer does the offer/answer
/// (non-trickle WHIP: the answer must carry all candidates) and returns the session to end later.
public final class WHIPEndpoint: Sendable {
    /// Answers an offer: returns the complete SDP answer and the session it created.
    public typealias Answerer =
        @Sendable (_ offer: String) async throws -> (answer: String, session: any WHIPEndpointSession)

    /// Where and how the endpoint listens, and its limits.
    public struct Configuration: Sendable, Hashable, CustomStringConvertible {
        /// The default ``maxOfferBytes``: 128 KiB (a browser's offer with every candidate is
        /// a few KiB).
        public static let defaultMaxOfferBytes = 128 * 1024
        /// The default ``maxSessions``: 64 sessions open at once.
        public static let defaultMaxSessions = 64
        /// The default ``maxSessionsPerAddress``: 8 sessions from one client address.
        public static let defaultMaxSessionsPerAddress = 8
        /// The default ``connectTimeout``: 15 s from the answer to a connected session.
        public static let defaultConnectTimeout = Duration.seconds(15)
        /// The default ``maxICERestarts``: 16 per session (a client on a moving network restarts
        /// when its path changes, not many times a minute).
        public static let defaultMaxICERestarts = 16
        /// The default ``maxSessionDuration``: 12 hours.
        public static let defaultMaxSessionDuration = Duration.seconds(12 * 3600)

        /// The address to listen on (default 127.0.0.1).
        public var host: String
        /// The TCP port; 0 picks a free one (see ``WHIPEndpoint/run(onListening:)``).
        public var port: Int
        /// The endpoint's path; session URLs are `<path>/<id>`.
        public var path: String
        /// The WHEP endpoint's path (served when the endpoint has a WHEP answerer); its session
        /// URLs are `<whepPath>/<id>`.
        public var whepPath = "/whep"
        /// The largest offer accepted (`413` above).
        public var maxOfferBytes: Int
        /// When set, every request must carry `Authorization: Bearer <token>`.
        public var bearerToken: String?
        /// The most sessions open at once, counting the offers being answered (`503` above).
        public var maxSessions: Int
        /// The most sessions open at once for one client IP address, counting the offers
        /// being answered (`429` above).
        public var maxSessionsPerAddress: Int
        /// How long a session may take to connect after its answer went out; it is ended then.
        public var connectTimeout: Duration
        /// The most ICE restarts (`PATCH` with `If-Match: *`) one session may do; more get `429`.
        public var maxICERestarts = Configuration.defaultMaxICERestarts
        /// How long a session may last from its creation, connected or not; it is ended then
        /// (a publisher that should go on publishes again). At least a second.
        public var maxSessionDuration: Duration = defaultMaxSessionDuration {
            didSet { maxSessionDuration = max(maxSessionDuration, .seconds(1)) }
        }
        /// When set, the endpoint serves `https://` with this certificate and key (else plain
        /// `http://`: put it behind a TLS proxy, or keep it on loopback).
        public var tls: TLSIdentity?
        /// STUN and TURN servers offered to clients in `Link` headers (RFC 9725 §4.6), in the
        /// `201 Created` and in the reply to an authorized `OPTIONS`.
        public var iceServers: [WHIPICEServer] = []
        /// The TCP connections the endpoint takes, and how long they may stay without a
        /// request or silent (``ServerDoor``): counted before TLS and HTTP, from `accept`.
        public var door = ServerDoor.Configuration()

        /// Listens on `host:port` at `path`.
        public init(
            host: String = "127.0.0.1",
            port: Int = 0,
            path: String = "/whip",
            maxOfferBytes: Int = Configuration.defaultMaxOfferBytes,
            bearerToken: String? = nil,
            maxSessions: Int = Configuration.defaultMaxSessions,
            maxSessionsPerAddress: Int = Configuration.defaultMaxSessionsPerAddress,
            connectTimeout: Duration = Configuration.defaultConnectTimeout,
            tls: TLSIdentity? = nil
        ) {
            self.host = host
            self.port = port
            self.path = path
            self.maxOfferBytes = maxOfferBytes
            self.bearerToken = bearerToken
            self.maxSessions = maxSessions
            self.maxSessionsPerAddress = maxSessionsPerAddress
            self.connectTimeout = connectTimeout
            self.tls = tls
        }

        /// The configuration in one line; says whether a token is set, never the token.
        public var description: String {
            "WHIP endpoint \(tls == nil ? "http" : "https")://\(host):\(port)\(path)\(tls.map { " (\($0))" } ?? ""), token \(bearerToken == nil ? "none" : "set"), offers up to \(maxOfferBytes) bytes, "
                + "\(maxSessions) sessions (\(maxSessionsPerAddress) per address), connect timeout \(connectTimeout), "
                + "sessions last at most \(maxSessionDuration), "
                + "door: \(door.maxConnections) TCP connections (\(door.maxConnectionsPerAddress) per address), "
                + "request timeout \(door.requestTimeout), idle timeout \(door.idleTimeout)"
        }
    }

    /// What the endpoint did since it was created: sessions, and the requests it refused.
    public struct Stats: Sendable, Hashable, CustomStringConvertible {
        /// Sessions created (`201`), publishers' and viewers'.
        public var sessionsCreated = 0
        /// Of ``sessionsCreated``, the WHEP viewers' sessions.
        public var viewerSessionsCreated = 0
        /// Sessions ended by the client's `DELETE`.
        public var endedByClient = 0
        /// Sessions ended because they did not connect within the connect timeout.
        public var timedOut = 0
        /// Sessions ended because their connection failed.
        public var failed = 0
        /// Sessions ended because they lasted ``Configuration/maxSessionDuration``.
        public var expired = 0
        /// Offers refused with `503` because ``Configuration/maxSessions`` were open.
        public var rejectedSessionLimit = 0
        /// Offers refused with `429` because ``Configuration/maxSessionsPerAddress`` were open
        /// for the client's address.
        public var rejectedAddressLimit = 0
        /// Requests refused with `401` (no or a wrong bearer token).
        public var unauthorized = 0
        /// Requests refused as the client's fault: `400`, `405`, `413`, `415`, `422`.
        public var badRequests = 0
        /// Offers the answerer failed on (`500`), and `PATCH`es the session failed on.
        public var answererErrors = 0
        /// `PATCH`es of trickled candidates taken (`204`).
        public var trickles = 0
        /// ICE restarts done (`200` to a `PATCH` with `If-Match: *`).
        public var iceRestarts = 0
        /// ICE restarts refused with `429` because the session had done ``Configuration/maxICERestarts``.
        public var rejectedRestarts = 0

        /// A stats of zeros.
        public init() {}

        /// The counters on one line, `name=value` each.
        public var description: String {
            "created=\(sessionsCreated) viewers_created=\(viewerSessionsCreated) ended_by_client=\(endedByClient) timed_out=\(timedOut) failed=\(failed) expired=\(expired) "
                + "rejected_session_limit=\(rejectedSessionLimit) rejected_address_limit=\(rejectedAddressLimit) "
                + "unauthorized=\(unauthorized) bad_requests=\(badRequests) answerer_errors=\(answererErrors) "
                + "trickles=\(trickles) ice_restarts=\(iceRestarts) rejected_restarts=\(rejectedRestarts)"
        }
    }

    /// How long a client refused for a limit is asked to wait (`Retry-After`, seconds).
    public static let retryAfterSeconds = 5
    /// The largest `PATCH` body taken: 16 KiB (a fragment of 64 candidates is some 8 KiB).
    public static let maxFragmentBytes = 16 * 1024
    /// The media type of a `PATCH` body (RFC 8840 §9.2).
    static let fragmentType = "application/trickle-ice-sdpfrag"

    /// Where and how it listens (the path normalised to `/segment`).
    public let configuration: Configuration
    /// The endpoint's door: what it refused and closed before HTTP (``ServerDoor/counters``).
    public let door: ServerDoor
    /// `Accept-Post` (RFC 5023 §8.2; RFC 9725 uses it in the OPTIONS reply).
    static let acceptPost = HTTPFields.Element.Name("Accept-Post")!
    /// `Link` (RFC 8288).
    static let link = HTTPFields.Element.Name("Link")!
    /// `Accept-Patch` (RFC 5789 §3.1): the media type a session URL takes.
    static let acceptPatch = HTTPFields.Element.Name("Accept-Patch")!

    /// An open session: the client address it counts against, and the task that ends it
    /// when it does not connect in time or fails.
    struct Entry {
        let session: any WHIPEndpointSession
        /// The path of the endpoint that created it (``Configuration/path`` or ``Configuration/whepPath``).
        let path: String
        let address: String
        let watcher: Task<Void, Never>
        /// The session's entity tag, quoted: a trickle `PATCH` must name it in `If-Match`; an
        /// ICE restart makes a new one.
        var etag: String
        /// ICE restarts done.
        var restarts = 0
    }

    struct State {
        var sessions: [String: Entry] = [:]
        /// Open sessions plus offers being answered: what the limits count.
        var admitted = 0
        var admittedByAddress: [String: Int] = [:]
        var stats = Stats()

        mutating func release(_ address: String) {
            admitted -= 1
            let left = (admittedByAddress[address] ?? 1) - 1
            admittedByAddress[address] = left > 0 ? left : nil
        }
    }

    let answerer: Answerer
    let whepAnswerer: Answerer?
    let state = Mutex(State())
    let logger = SwiftRTCLogging.logger("whip")

    /// An endpoint that answers each offer POSTed to ``Configuration/path`` with `answerer`
    /// and, when `whepAnswerer` is given, each one POSTed to ``Configuration/whepPath`` with it.
    public init(
        configuration: Configuration = Configuration(),
        answerer: @escaping Answerer,
        whepAnswerer: Answerer? = nil
    ) {
        var configuration = configuration
        // One leading slash, no trailing one.
        func normalized(_ path: String) -> String {
            "/" + path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        }
        configuration.path = normalized(configuration.path)
        configuration.whepPath = normalized(configuration.whepPath)
        self.configuration = configuration
        self.answerer = answerer
        self.whepAnswerer = whepAnswerer
        door = ServerDoor(configuration: configuration.door, name: "whip")
    }

    /// The ids of the sessions that are open (created and not yet ended).
    public var sessionIDs: [String] {
        state.withLock { Array($0.sessions.keys) }
    }

    /// The counters: sessions created and ended, requests refused and why.
    public var stats: Stats {
        state.withLock { $0.stats }
    }

    /// Runs the HTTP server (HTTPS with ``Configuration/tls``) until the calling task is
    /// cancelled. `onListening` gets the endpoint's URL (`http://` or `https://`, with the port
    /// actually bound) once the server accepts connections.
    /// Sessions still open when it returns are not ended: call ``endAllSessions()``.
    ///
    /// In a ServiceLifecycle `ServiceGroup`, a graceful shutdown (SIGTERM) stops the HTTP server
    /// taking requests, lets those under way finish, ends every open session, then returns.
    public func run(onListening: @escaping @Sendable (URL) async -> Void) async throws {
        let router = Router(context: WHIPRequestContext.self)
        router.add(
            middleware: WHIPCORSMiddleware(
                requiresToken: configuration.bearerToken != nil,
                paths: [configuration.path] + (whepAnswerer == nil ? [] : [configuration.whepPath])
            )
        )
        addRoutes(to: router)
        OperationsRoutes.add(to: router) { true }
        let httpLogger = HTTPServerLogger.make("whip.http")
        let host = configuration.host
        let path = configuration.path
        let scheme = configuration.tls == nil ? "http" : "https"
        let app = Application(
            router: router,
            server: try door.serverBuilder(tls: configuration.tls) { HTTP1Channel(responder: $0) },
            configuration: ApplicationConfiguration(address: .hostname(host, port: configuration.port)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                guard let url = URL(listeningOn: host, port: port, scheme: scheme, path: path) else { return }
                await onListening(url)
            },
            logger: httpLogger
        )
        // Hummingbird's server stops listening at a graceful shutdown and returns once its
        // requests are answered.
        try await app.run()
        if Task.isShuttingDownGracefully { await endAllSessions() }
    }

    /// Ends every open session (e.g. when the server stops) and forgets them.
    public func endAllSessions() async {
        let open = state.withLock { state in
            defer {
                for entry in state.sessions.values { state.release(entry.address) }
                state.sessions.removeAll()
            }
            return Array(state.sessions.values)
        }
        for entry in open {
            entry.watcher.cancel()
            await entry.session.end()
        }
    }

    /// Whether `presented` equals `expected`, comparing every byte: the time taken depends on
    /// the length of `presented` only (the client's own), never on where the two differ nor
    /// on `expected`'s length, so a client cannot find the token byte by byte by timing.
    static func constantTimeEquals(_ presented: String, _ expected: String) -> Bool {
        let presented = Array(presented.utf8), expected = Array(expected.utf8)
        guard !expected.isEmpty else { return presented.isEmpty }
        var difference = UInt64(truncatingIfNeeded: presented.count ^ expected.count)
        var index = 0
        for byte in presented {
            difference |= UInt64(byte ^ expected[index])
            index += 1
            if index == expected.count { index = 0 }
        }
        return difference == 0
    }
}

extension WHIPEndpoint: Service {
    /// Serves as a service of a ServiceLifecycle `ServiceGroup` (``run(onListening:)`` without
    /// a listener): a graceful shutdown of the group ends the sessions and returns.
    public func run() async throws {
        try await run(onListening: { _ in })
    }
}
