import Foundation
import Hummingbird
import Logging
import Synchronization
import SwiftRTCCore

/// One session a ``WHIPEndpoint`` created for a POSTed offer: whatever carries the call
/// (a peer connection, a recorder...). The endpoint ends it on `DELETE` of its session URL.
public protocol WHIPEndpointSession: Sendable {
    /// Ends the call and frees what it holds. Called once, by `DELETE` or ``WHIPEndpoint/endAllSessions()``.
    func end() async
}

/// An answerer can throw this to reject an offer it cannot take as the client's fault:
/// the endpoint answers `400 Bad Request` with `reason` (other errors answer `500`).
public struct WHIPOfferRejected: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why, in words; sent to the client in the `400` body.
    public var reason: String
    /// Rejects the offer for `reason`.
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "offer rejected: \(reason)" }
}

/// A WHIP endpoint (RFC 9725 §4.2) over Hummingbird's HTTP/1.1 server.
///
/// - `POST <path>` with an `application/sdp` offer calls the answerer and replies `201 Created`
///   with its answer (`Content-Type: application/sdp`) and `Location: <path>/<id>`;
///   another content type is `415`, an empty or non-SDP body `400`, a body over
///   ``Configuration/maxOfferBytes`` `413`, a ``WHIPOfferRejected`` from the answerer `400`, any other
///   error of the answerer `500`.
/// - `DELETE <path>/<id>` ends that session and replies `200 OK`; an unknown id is `404`.
/// - `OPTIONS <path>` replies `204` with `Accept-Post: application/sdp`.
/// - With ``Configuration/bearerToken`` set, requests without that token are `401`.
///
/// The endpoint knows nothing of SDP or peer connections: the answerer does the offer/answer
/// (non-trickle WHIP: the answer must carry all candidates) and returns the session to end later.
public final class WHIPEndpoint: Sendable {
    /// Answers an offer: returns the complete SDP answer and the session it created.
    public typealias Answerer = @Sendable (_ offer: String) async throws -> (answer: String, session: any WHIPEndpointSession)

    /// Where and how the endpoint listens.
    public struct Configuration: Sendable, Hashable {
        /// The address to listen on (default 127.0.0.1).
        public var host: String
        /// The TCP port; 0 picks a free one (see ``WHIPEndpoint/run(onListening:)``).
        public var port: Int
        /// The endpoint's path; session URLs are `<path>/<id>`.
        public var path: String
        /// The largest offer accepted (`413` above).
        public var maxOfferBytes: Int
        /// When set, every request must carry `Authorization: Bearer <token>`.
        public var bearerToken: String?

        /// Listens on `host:port` at `path`.
        public init(host: String = "127.0.0.1", port: Int = 0, path: String = "/whip",
                    maxOfferBytes: Int = 128 * 1024, bearerToken: String? = nil) {
            self.host = host
            self.port = port
            self.path = path
            self.maxOfferBytes = maxOfferBytes
            self.bearerToken = bearerToken
        }
    }

    /// Where and how it listens (the path normalised to `/segment`).
    public let configuration: Configuration
    /// `Accept-Post` (RFC 5023 §8.2; RFC 9725 uses it in the OPTIONS reply).
    private static let acceptPost = HTTPFields.Element.Name("Accept-Post")!
    private let answerer: Answerer
    private let sessions = Mutex<[String: any WHIPEndpointSession]>([:])
    private let logger = SwiftRTCLogging.logger("whip")

    /// An endpoint that answers each POSTed offer with `answerer`.
    public init(configuration: Configuration = Configuration(), answerer: @escaping Answerer) {
        var configuration = configuration
        // One leading slash, no trailing one.
        let trimmed = configuration.path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        configuration.path = "/" + trimmed
        self.configuration = configuration
        self.answerer = answerer
    }

    /// The ids of the sessions that are open (created and not yet ended).
    public var sessionIDs: [String] {
        sessions.withLock { Array($0.keys) }
    }

    /// Runs the HTTP server until the calling task is cancelled. `onListening` gets the
    /// endpoint's URL (with the port actually bound) once the server accepts connections.
    /// Sessions still open when it returns are not ended: call ``endAllSessions()``.
    public func run(onListening: @escaping @Sendable (URL) async -> Void = { _ in }) async throws {
        let router = Router(context: BasicRequestContext.self)
        addRoutes(to: router)
        // Hummingbird logs every request at debug, its start at info and its stop by
        // cancellation as an error: quiet unless verbose logging is on (failures to listen
        // are thrown from here, request errors answered to the client and logged above).
        let httpLogger = SwiftRTCLogging.level == .verbose
            ? SwiftRTCLogging.logger("whip.http") : Logger(label: "swiftrtc.whip.http") { _ in SwiftLogNoOpLogHandler() }
        let host = configuration.host
        let path = configuration.path
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: configuration.port)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
                guard let url = URL(string: "http://\(authority)\(path)") else { return }
                await onListening(url)
            },
            logger: httpLogger
        )
        try await app.run()
    }

    /// Ends every open session (e.g. when the server stops) and forgets them.
    public func endAllSessions() async {
        let open = sessions.withLock { sessions in
            defer { sessions.removeAll() }
            return Array(sessions.values)
        }
        for session in open { await session.end() }
    }

    // MARK: - Routes

    private func addRoutes(to router: Router<BasicRequestContext>) {
        let path = RouterPath(configuration.path)
        let sessionPath = RouterPath(configuration.path + "/:id")
        router.post(path) { [self] request, _ in try await self.post(request) }
        router.on(path, method: .options) { [self] request, _ in
            if let denied = self.unauthorized(request) { return denied }
            return Response(status: .noContent, headers: [.allow: "POST, OPTIONS", Self.acceptPost: "application/sdp"])
        }
        router.delete(sessionPath) { [self] request, context in
            if let denied = self.unauthorized(request) { return denied }
            let id = context.parameters.get("id") ?? ""
            return await self.endSession(id: id)
        }
        router.post(sessionPath) { _, _ in
            Self.text(.methodNotAllowed, "POST the offer to the endpoint, not to a session URL", headers: [.allow: "DELETE"])
        }
        router.patch(sessionPath) { _, _ in
            Self.text(.methodNotAllowed, "trickle ICE (PATCH) is not supported: put all candidates in the offer", headers: [.allow: "DELETE"])
        }
    }

    private func post(_ request: Request) async throws -> Response {
        if let denied = unauthorized(request) { return denied }
        guard let contentType = request.headers[.contentType], WHIPClient.isSDP(contentType) else {
            return Self.text(.unsupportedMediaType, "Content-Type must be application/sdp", headers: [Self.acceptPost: "application/sdp"])
        }
        let limit = configuration.maxOfferBytes
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            return Self.text(.contentTooLarge, "offer of \(length) bytes is over the limit of \(limit) bytes")
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: limit)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            return Self.text(.contentTooLarge, "offer is over the limit of \(limit) bytes")
        } catch {
            return Self.text(.badRequest, "cannot read the offer body: \(error)")
        }
        guard let offer = String(validating: body.readableBytesView, as: UTF8.self) else {
            return Self.text(.badRequest, "the offer is not UTF-8")
        }
        // An SDP starts with its version line (RFC 8866 §5).
        guard offer.hasPrefix("v=0") else {
            return Self.text(.badRequest, offer.isEmpty ? "empty offer" : "the body is not an SDP offer (no v=0 first line)")
        }
        let answer: String
        let session: any WHIPEndpointSession
        do {
            (answer, session) = try await answerer(offer)
        } catch let rejected as WHIPOfferRejected {
            logger.info("WHIP offer rejected: \(rejected.reason)")
            return Self.text(.badRequest, rejected.description)
        } catch {
            logger.error("WHIP answerer failed: \(error)")
            return Self.text(.internalServerError, "cannot answer the offer: \(error)")
        }
        let id = UUID().uuidString.lowercased()
        sessions.withLock { $0[id] = session }
        logger.info("WHIP session \(id) created")
        return Response(
            status: .created,
            headers: [.contentType: "application/sdp", .location: "\(configuration.path)/\(id)", .eTag: "\"\(id)\""],
            body: ResponseBody(byteBuffer: ByteBuffer(string: answer))
        )
    }

    private func endSession(id: String) async -> Response {
        guard let session = sessions.withLock({ $0.removeValue(forKey: id) }) else {
            return Self.text(.notFound, "no WHIP session \(id)")
        }
        await session.end()
        logger.info("WHIP session \(id) ended by DELETE")
        return Response(status: .ok)
    }

    private func unauthorized(_ request: Request) -> Response? {
        guard let token = configuration.bearerToken else { return nil }
        if request.headers[.authorization] == "Bearer \(token)" { return nil }
        return Self.text(.unauthorized, "a bearer token is required", headers: [.wwwAuthenticate: "Bearer"])
    }

    private static func text(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}
