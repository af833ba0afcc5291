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
    private static let acceptPost = HTTPFields.Element.Name("Accept-Post")!
    /// `Link` (RFC 8288).
    private static let link = HTTPFields.Element.Name("Link")!
    /// `Accept-Patch` (RFC 5789 §3.1): the media type a session URL takes.
    private static let acceptPatch = HTTPFields.Element.Name("Accept-Patch")!

    /// An open session: the client address it counts against, and the task that ends it
    /// when it does not connect in time or fails.
    private struct Entry {
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

    private struct State {
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

    private let answerer: Answerer
    private let whepAnswerer: Answerer?
    private let state = Mutex(State())
    private let logger = SwiftRTCLogging.logger("whip")

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
        // Hummingbird logs every request at debug, its start at info and its stop by
        // cancellation as an error: quiet unless verbose logging is on (failures to listen
        // are thrown from here, request errors answered to the client and logged above).
        let httpLogger =
            SwiftRTCLogging.level == .verbose
            ? SwiftRTCLogging.logger("whip.http")
            : Logger(label: "swiftrtc.whip.http") { _ in SwiftLogNoOpLogHandler() }
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

    // MARK: - Routes

    private func addRoutes(to router: Router<WHIPRequestContext>) {
        addRoutes(to: router, path: configuration.path, answerer: answerer)
        if let whepAnswerer { addRoutes(to: router, path: configuration.whepPath, answerer: whepAnswerer) }
    }

    /// The routes of the endpoint at `path` whose offers `answerer` answers.
    private func addRoutes(
        to router: Router<WHIPRequestContext>,
        path endpointPath: String,
        answerer: @escaping Answerer
    ) {
        let path = RouterPath(endpointPath)
        let sessionPath = RouterPath(endpointPath + "/:id")
        router.post(path) { [self] request, context in
            try await self.post(request, from: context.clientAddress, to: endpointPath, answerer: answerer)
        }
        router.on(path, method: .options) { [self] request, _ in
            if let denied = self.unauthorized(request) { return denied }
            var headers: HTTPFields = [.allow: "POST, OPTIONS", Self.acceptPost: "application/sdp"]
            self.addLinks(to: &headers)
            return Response(status: .noContent, headers: headers)
        }
        router.delete(sessionPath) { [self] request, context in
            if let denied = self.unauthorized(request) { return denied }
            let id = context.parameters.get("id") ?? ""
            return await self.endSession(id: id, at: endpointPath)
        }
        router.post(sessionPath) { [self] _, _ in
            self.refused(
                .methodNotAllowed,
                "POST the offer to the endpoint, not to a session URL",
                headers: [.allow: "DELETE, PATCH"]
            )
        }
        router.patch(sessionPath) { [self] request, context in
            try await self.patch(request, id: context.parameters.get("id") ?? "", at: endpointPath)
        }
    }

    private func post(
        _ request: Request,
        from address: String,
        to endpointPath: String,
        answerer: Answerer
    ) async throws -> Response {
        if let denied = unauthorized(request) { return denied }
        guard let contentType = request.headers[.contentType], WHIPClient.isSDP(contentType) else {
            return refused(
                .unsupportedMediaType,
                "Content-Type must be application/sdp",
                headers: [Self.acceptPost: "application/sdp"]
            )
        }
        let limit = configuration.maxOfferBytes
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            return refused(.contentTooLarge, "offer of \(length) bytes is over the limit of \(limit) bytes")
        }
        let requestBody = request.body
        let body: ByteBuffer
        do {
            // Stops reading at the limit (a chunked body has no Content-Length to refuse first),
            // and at the door's request timeout (a body trickled byte by byte holds a connection).
            let timeout = door.configuration.requestTimeout
            guard let collected = try await withTimeout(timeout, { try await requestBody.collect(upTo: limit) }) else {
                door.closed(address, .slowBody)
                return refused(
                    .requestTimeout,
                    "the offer did not arrive within \(timeout)",
                    headers: [.connection: "close"]
                )
            }
            body = collected
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            return refused(.contentTooLarge, "offer is over the limit of \(limit) bytes")
        } catch {
            return refused(.badRequest, "cannot read the offer body: \(error)")
        }
        guard let offer = String(validating: body.readableBytesView, as: UTF8.self) else {
            return refused(.badRequest, "the offer is not UTF-8")
        }
        // An SDP starts with its version line (RFC 8866 §5).
        guard offer.hasPrefix("v=0") else {
            return refused(
                .badRequest,
                offer.isEmpty ? "empty offer" : "the body is not an SDP offer (no v=0 first line)"
            )
        }
        if let full = admit(address) { return full }
        let answer: String
        let session: any WHIPEndpointSession
        do {
            (answer, session) = try await answerer(offer)
        } catch let rejected as WHIPOfferRejected {
            state.withLock { $0.release(address) }
            logger.info("WHIP offer rejected: \(rejected.reason)")
            return refused(rejected.kind == .unusable ? .unprocessableContent : .badRequest, rejected.description)
        } catch {
            state.withLock {
                $0.release(address)
                $0.stats.answererErrors += 1
            }
            logger.error("WHIP answerer failed: \(error)")
            return Self.text(.internalServerError, "cannot answer the offer: \(error)")
        }
        let id = UUID().uuidString.lowercased()
        let (timeout, lifetime) = (configuration.connectTimeout, configuration.maxSessionDuration)
        let open = state.withLock { state in
            // The watcher takes the lock only once it has something to end: after this returns.
            let watcher = Task { [weak self] in
                _ = await self?.watch(id, session, timeout: timeout, lifetime: lifetime)
            }
            state.sessions[id] = Entry(
                session: session,
                path: endpointPath,
                address: address,
                watcher: watcher,
                etag: "\"\(id)\""
            )
            state.stats.sessionsCreated += 1
            if endpointPath != configuration.path { state.stats.viewerSessionsCreated += 1 }
            return state.sessions.count
        }
        logger.info(
            "\(endpointPath == configuration.path ? "WHIP" : "WHEP") session created (\(open) open)",
            metadata: ["session": "\(id)"]
        )
        var headers: HTTPFields = [
            .contentType: "application/sdp", .location: "\(endpointPath)/\(id)", .eTag: "\"\(id)\"",
        ]
        addLinks(to: &headers)
        return Response(
            status: .created,
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: answer))
        )
    }

    /// The ``Configuration/iceServers`` as `Link` headers.
    private func addLinks(to headers: inout HTTPFields) {
        for server in configuration.iceServers {
            headers.append(HTTPFields.Element(name: Self.link, value: server.linkValue))
        }
    }

    /// A `PATCH` of session `id` at `path`: trickled candidates or an ICE restart.
    private func patch(_ request: Request, id: String, at path: String) async throws -> Response {
        if let denied = unauthorized(request) { return denied }
        guard let entry = state.withLock({ $0.sessions[id] }), entry.path == path else {
            return Self.text(.notFound, "no \(path == configuration.path ? "WHIP" : "WHEP") session \(id)")
        }
        guard let contentType = request.headers[.contentType],
            contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
                == Self.fragmentType
        else {
            return refused(
                .unsupportedMediaType,
                "Content-Type must be \(Self.fragmentType)",
                headers: [Self.acceptPatch: Self.fragmentType]
            )
        }
        let requestBody = request.body
        let body: ByteBuffer
        do {
            let timeout = door.configuration.requestTimeout
            guard
                let collected = try await withTimeout(
                    timeout,
                    { try await requestBody.collect(upTo: Self.maxFragmentBytes) }
                )
            else {
                return refused(
                    .requestTimeout,
                    "the fragment did not arrive within \(timeout)",
                    headers: [.connection: "close"]
                )
            }
            body = collected
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            return refused(.contentTooLarge, "a fragment is at most \(Self.maxFragmentBytes) bytes")
        } catch {
            return refused(.badRequest, "cannot read the fragment: \(error)")
        }
        guard let text = String(validating: body.readableBytesView, as: UTF8.self) else {
            return refused(.badRequest, "the fragment is not UTF-8")
        }
        let fragment: TrickleICEFragment
        do { fragment = try TrickleICEFragment(parsing: text) } catch {
            return refused(.badRequest, "the fragment does not parse: \(error)")
        }
        guard let ifMatch = request.headers[.ifMatch]?.trimmingCharacters(in: .whitespaces) else {
            return refused(.preconditionRequired, "a PATCH needs If-Match: the session's ETag, or * for an ICE restart")
        }
        if ifMatch == "*" { return await restartICE(entry.session, with: fragment, id: id) }
        guard ifMatch == entry.etag else {
            return refused(.preconditionFailed, "If-Match \(ifMatch) is not the session's entity tag")
        }
        do {
            try await entry.session.addCandidates(fragment)
        } catch {
            return patchFailed(error)
        }
        state.withLock { $0.stats.trickles += 1 }
        return Response(status: .noContent)
    }

    /// An ICE restart of session `id` (its `PATCH` with `If-Match: *`).
    private func restartICE(
        _ session: any WHIPEndpointSession,
        with fragment: TrickleICEFragment,
        id: String
    ) async -> Response {
        guard fragment.usernameFragment != nil, fragment.password != nil else {
            return refused(.badRequest, "an ICE restart carries the new a=ice-ufrag and a=ice-pwd")
        }
        let maxRestarts = configuration.maxICERestarts
        let allowed = state.withLock { state -> Bool in
            guard let restarts = state.sessions[id]?.restarts, restarts < maxRestarts else {
                state.stats.rejectedRestarts += 1
                return false
            }
            state.sessions[id]?.restarts = restarts + 1
            return true
        }
        guard allowed else {
            return Self.text(.tooManyRequests, "the session has restarted ICE \(maxRestarts) times, its limit")
        }
        let answer: TrickleICEFragment
        do { answer = try await session.restartICE(fragment) } catch { return patchFailed(error) }
        let etag = "\"\(UUID().uuidString.lowercased())\""
        state.withLock { state in
            state.sessions[id]?.etag = etag
            state.stats.iceRestarts += 1
        }
        logger.info("ICE restarted", metadata: ["session": "\(id)"])
        return Response(
            status: .ok,
            headers: [.contentType: Self.fragmentType, .eTag: etag],
            body: ResponseBody(byteBuffer: ByteBuffer(string: answer.sdpfrag))
        )
    }

    /// The reply to a `PATCH` the session failed on.
    private func patchFailed(_ error: any Error) -> Response {
        switch error {
        case is WHIPPatchUnsupported:
            return refused(.methodNotAllowed, "\(error): put all candidates in the offer", headers: [.allow: "DELETE"])
        case let rejected as WHIPOfferRejected:
            return refused(rejected.kind == .unusable ? .unprocessableContent : .badRequest, rejected.reason)
        default:
            state.withLock { $0.stats.answererErrors += 1 }
            logger.error("WHIP PATCH failed: \(error)")
            return Self.text(.internalServerError, "cannot take the fragment: \(error)")
        }
    }

    /// Counts an offer from `address` against the limits; nil when it may be answered (the
    /// slot is taken: release it if no session comes of it), else the refusal to send.
    private func admit(_ address: String) -> Response? {
        let (maxSessions, maxPerAddress) = (configuration.maxSessions, configuration.maxSessionsPerAddress)
        let refusal: HTTPResponse.Status? = state.withLock { state in
            if state.admitted >= maxSessions {
                state.stats.rejectedSessionLimit += 1
                return .serviceUnavailable
            }
            if state.admittedByAddress[address, default: 0] >= maxPerAddress {
                state.stats.rejectedAddressLimit += 1
                return .tooManyRequests
            }
            state.admitted += 1
            state.admittedByAddress[address, default: 0] += 1
            return nil
        }
        guard let refusal else { return nil }
        let retryAfter: HTTPFields = [.retryAfter: "\(Self.retryAfterSeconds)"]
        if refusal == .serviceUnavailable {
            logger.info("WHIP offer refused: \(maxSessions) sessions open")
            return Self.text(
                refusal,
                "the endpoint has \(maxSessions) sessions open, its limit: retry later",
                headers: retryAfter
            )
        }
        logger.info("WHIP offer from \(address) refused: \(maxPerAddress) sessions open for that address")
        return Self.text(
            refusal,
            "\(maxPerAddress) sessions are open from your address, the limit: retry later",
            headers: retryAfter
        )
    }

    /// Follows session `id`'s connection: ends it when it is not connected `timeout` after
    /// its creation, when it fails, or `lifetime` after its creation. Cancelled when the
    /// session is ended otherwise.
    private func watch(
        _ id: String,
        _ session: any WHIPEndpointSession,
        timeout: Duration,
        lifetime: Duration
    ) async {
        let states = await session.connectionStates()
        let connected = ConnectedFlag()
        let outcome: WatchOutcome? = await withTaskGroup(of: WatchOutcome?.self) { group in
            group.addTask {
                for await state in states {
                    switch state {
                    case .connected: connected.set()
                    case .failed: return .failed
                    case .connecting: break
                    }
                }
                return nil
            }
            group.addTask {
                do { try await Task.sleep(for: timeout) } catch { return nil }
                return connected.isSet ? nil : .timedOut
            }
            group.addTask {
                do { try await Task.sleep(for: lifetime) } catch { return nil }
                return .expired
            }
            while let result = await group.next() {
                if let result {
                    group.cancelAll()
                    return result
                }
            }
            return nil
        }
        guard let outcome, !Task.isCancelled else { return }
        let entry = state.withLock { state -> Entry? in
            guard let entry = state.sessions.removeValue(forKey: id) else { return nil }
            state.release(entry.address)
            switch outcome {
            case .timedOut: state.stats.timedOut += 1
            case .failed: state.stats.failed += 1
            case .expired: state.stats.expired += 1
            }
            return entry
        }
        guard let entry else { return }
        await entry.session.end()
        switch outcome {
        case .timedOut:
            logger.info("WHIP session ended: not connected within \(timeout)", metadata: ["session": "\(id)"])
        case .failed: logger.info("WHIP session ended: its connection failed", metadata: ["session": "\(id)"])
        case .expired: logger.info("WHIP session ended: it lasted \(lifetime)", metadata: ["session": "\(id)"])
        }
    }

    private enum WatchOutcome: Sendable { case timedOut, failed, expired }

    /// Whether a watched session has connected (set once, read by the timer).
    private final class ConnectedFlag: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    /// Ends session `id` of the endpoint at `path`.
    private func endSession(id: String, at path: String) async -> Response {
        guard
            let entry = state.withLock({ state -> Entry? in
                guard state.sessions[id]?.path == path, let entry = state.sessions.removeValue(forKey: id) else {
                    return nil
                }
                state.release(entry.address)
                state.stats.endedByClient += 1
                return entry
            })
        else {
            return Self.text(.notFound, "no \(path == configuration.path ? "WHIP" : "WHEP") session \(id)")
        }
        entry.watcher.cancel()
        await entry.session.end()
        logger.info(
            "\(path == configuration.path ? "WHIP" : "WHEP") session ended by DELETE",
            metadata: ["session": "\(id)"]
        )
        return Response(status: .ok)
    }

    private func unauthorized(_ request: Request) -> Response? {
        guard let token = configuration.bearerToken else { return nil }
        let presented = request.headers[.authorization].flatMap(Self.bearerCredentials) ?? ""
        if Self.constantTimeEquals(presented, token) { return nil }
        state.withLock { $0.stats.unauthorized += 1 }
        return Self.text(.unauthorized, "a bearer token is required", headers: [.wwwAuthenticate: "Bearer"])
    }

    /// The token of an `Authorization: Bearer <token>` header (the scheme in any case,
    /// RFC 9110 §11.1); nil for another scheme.
    static func bearerCredentials(_ header: String) -> String? {
        let scheme = "bearer "
        guard header.utf8.count > scheme.utf8.count, header.prefix(scheme.count).lowercased() == scheme else {
            return nil
        }
        return String(header.dropFirst(scheme.count).drop { $0 == " " })
    }

    /// A plain-text reply for a request refused as the client's fault, counted in ``Stats/badRequests``.
    private func refused(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) -> Response {
        state.withLock { $0.stats.badRequests += 1 }
        return Self.text(status, message, headers: headers)
    }

    private static func text(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(
            status: status,
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n"))
        )
    }
}

/// The request context of ``WHIPEndpoint``'s routes: Hummingbird's, plus the client's
/// address (from the connection, not from any header) that the per-address limit counts.
/// Made when a request's head has come in, which it tells the connection's door
/// (``ServerDoor/requestStarted(on:)``).
struct WHIPRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// ``ClientAddress/key(forIP:)`` of the client: an IPv4 address or an IPv6 /64.
    let clientAddress: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = ClientAddress.key(forIP: source.channel.remoteAddress?.ipAddress)
        ServerDoor.requestStarted(on: source.channel)
    }
}

extension WHIPEndpoint: Service {
    /// Serves as a service of a ServiceLifecycle `ServiceGroup` (``run(onListening:)`` without
    /// a listener): a graceful shutdown of the group ends the sessions and returns.
    public func run() async throws {
        try await run(onListening: { _ in })
    }
}
