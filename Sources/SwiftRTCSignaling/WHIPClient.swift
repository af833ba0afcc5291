import Foundation
import NIOHTTP1
import SwiftRTCCore
import SwiftRTCSDP

/// A WHIP client (RFC 9725): POSTs an SDP offer to a WHIP endpoint, takes the `201 Created`
/// answer and its `Location`, and `DELETE`s that location to end the session. Candidates
/// gathered after the offer go to the session with ``trickle(_:to:)``, an ICE restart with
/// ``restartICE(_:of:)`` (both `PATCH`, RFC 9725 §4.3).
///
/// The same exchange pulls a stream from a WHEP endpoint (draft-ietf-wish-whep): ``publish(offer:)``
/// a receive-only offer to it.
///
/// `https://` endpoints are verified against ``trust`` (the system's CA certificates unless
/// told otherwise): a certificate that does not verify is ``WHIPError/tls(method:url:message:)``,
/// never ignored. HTTP/1.1 over swift-nio, one connection per request.
///
/// ```swift
/// let client = WHIPClient(endpoint: URL(string: "http://127.0.0.1:8080/whip")!)
/// let session = try await client.publish(offer: offerSDP)
/// // apply session.answer ... later:
/// try await client.end(session)
/// ```
public struct WHIPClient: Sendable, CustomStringConvertible {
    /// The WHIP endpoint URL the offer is POSTed to.
    public var endpoint: URL
    /// Sent as `Authorization: Bearer <token>` on every request when set.
    public var bearerToken: String?
    /// The most a request may take, from connecting to the last byte of the response.
    public var timeout: Duration
    /// Whom an `https://` endpoint's certificate must chain to.
    public var trust: TLSTrust

    /// Redirects of the offer followed at most (RFC 9725 §4.5: an endpoint may send the POST
    /// elsewhere with `307` or `308`); a loop ends here with ``WHIPError/tooManyRedirects(url:count:)``.
    public static let maxRedirects = 5

    /// How much of an error response's body a ``WHIPError`` keeps.
    static let bodyExcerptLength = 200

    /// A client for the WHIP endpoint at `endpoint`; each request may take up to `timeout`;
    /// `https://` servers are verified against `trust`.
    public init(endpoint: URL, bearerToken: String? = nil, timeout: Duration = .seconds(10), trust: TLSTrust = .system)
    {
        self.endpoint = endpoint
        self.bearerToken = bearerToken
        self.timeout = timeout
        self.trust = trust
    }

    /// POSTs `offer` as `application/sdp` and returns the answer and the session URL.
    ///
    /// Follows `307`/`308` redirects (at most ``maxRedirects``; never from `https://` to
    /// `http://`; the bearer token goes only to the endpoint's origin). Requires `201 Created`,
    /// a `Location` header and an `application/sdp` body.
    public func publish(offer: String) async throws(WHIPError) -> WHIPSession {
        var url = endpoint
        var response = try await post(offer, to: url)
        var redirects = 0
        while response.status == 307 || response.status == 308 {
            guard redirects < Self.maxRedirects else { throw .tooManyRedirects(url: endpoint, count: redirects) }
            url = try Self.follow(response.headers.first(name: "Location"), from: url)
            redirects += 1
            response = try await post(offer, to: url)
        }
        return try session(from: response, of: url)
    }

    private func post(_ offer: String, to url: URL) async throws(WHIPError) -> WHIPHTTPExchange.Response {
        try await send(
            .POST,
            url: url,
            headers: [("Content-Type", "application/sdp"), ("Accept", "application/sdp")],
            body: Data(offer.utf8)
        )
    }

    /// Where a redirect from `url` leads: an http(s) URL, https when `url` was.
    static func follow(_ location: String?, from url: URL) throws(WHIPError) -> URL {
        guard let location, let next = URL(string: location, relativeTo: url)?.absoluteURL,
            let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { throw .invalidLocation(url: url, location: location ?? "") }
        if url.scheme?.lowercased() == "https", scheme != "https" {
            throw .insecureLocation(url: url, location: location)
        }
        return next
    }

    /// The session of the `201 Created` that `endpoint` (after redirects: the URL that
    /// answered) gave.
    private func session(from response: WHIPHTTPExchange.Response, of endpoint: URL) throws(WHIPError) -> WHIPSession {
        let body = response.body
        guard response.status == 201 else {
            throw .unexpectedStatus(
                method: "POST",
                url: endpoint,
                status: response.status,
                expected: "201 Created",
                body: Self.excerpt(body)
            )
        }
        guard let location = response.headers.first(name: "Location"), !location.isEmpty else {
            throw .missingLocation(url: endpoint)
        }
        guard let resolved = URL(string: location, relativeTo: endpoint)?.absoluteURL, resolved.scheme != nil else {
            throw .invalidLocation(url: endpoint, location: location)
        }
        // An https endpoint's session stays on https: its DELETE must not go in the clear.
        if endpoint.scheme?.lowercased() == "https", resolved.scheme?.lowercased() != "https" {
            throw .insecureLocation(url: endpoint, location: location)
        }
        let contentType = response.headers.first(name: "Content-Type")
        guard let contentType, Self.isSDP(contentType) else {
            throw .wrongContentType(url: endpoint, contentType: contentType)
        }
        guard let answer = String(data: body, encoding: .utf8), !answer.isEmpty else {
            throw .invalidAnswer(url: endpoint, reason: body.isEmpty ? "empty answer body" : "answer body is not UTF-8")
        }
        var session = WHIPSession(location: resolved, answer: answer, etag: response.headers.first(name: "ETag"))
        session.iceServers = WHIPICEServer.servers(
            inLinkHeaders: response.headers[canonicalForm: "Link"].map(String.init)
        )
        return session
    }

    /// The STUN and TURN servers the endpoint offers (RFC 9725 §4.6): the `Link` headers of its
    /// reply to `OPTIONS`, asked before the peer connection is made so that its candidates can
    /// use them. An endpoint that offers none, or takes no `OPTIONS`, gives none.
    public func iceServers() async throws(WHIPError) -> [WHIPICEServer] {
        let response = try await send(.OPTIONS, url: endpoint, headers: [], body: nil)
        guard (200..<300).contains(response.status) else { return [] }
        return WHIPICEServer.servers(inLinkHeaders: response.headers[canonicalForm: "Link"].map(String.init))
    }

    /// Sends candidates gathered after the offer to `session` (RFC 9725 §4.3.1): a `PATCH` of
    /// its URL with `fragment` as `application/trickle-ice-sdpfrag` and `If-Match` its
    /// ``WHIPSession/etag`` (`*` without one). True on `204` (or `200`); false when the session
    /// takes no trickle (`405`, `422`, `501`): send it no more candidates.
    public func trickle(_ fragment: TrickleICEFragment, to session: WHIPSession) async throws(WHIPError) -> Bool {
        let response = try await patch(fragment, session: session, ifMatch: session.etag ?? "*")
        if [405, 422, 501].contains(response.status) { return false }
        guard response.status == 204 || response.status == 200 else {
            throw .unexpectedStatus(
                method: "PATCH",
                url: session.location,
                status: response.status,
                expected: "204 No Content",
                body: Self.excerpt(response.body)
            )
        }
        return true
    }

    /// Restarts ICE on `session` (RFC 9725 §4.3.2): a `PATCH` with `If-Match: *` carrying this
    /// side's new credentials and candidates (`fragment`); returns the session's new ones
    /// (`200 OK`) and keeps its new `ETag` in `session`.
    public func restartICE(
        _ fragment: TrickleICEFragment,
        of session: inout WHIPSession
    ) async throws(WHIPError) -> TrickleICEFragment {
        let response = try await patch(fragment, session: session, ifMatch: "*")
        guard response.status == 200 else {
            throw .unexpectedStatus(
                method: "PATCH",
                url: session.location,
                status: response.status,
                expected: "200 OK",
                body: Self.excerpt(response.body)
            )
        }
        let contentType = response.headers.first(name: "Content-Type") ?? ""
        guard contentType.lowercased().hasPrefix("application/trickle-ice-sdpfrag"),
            let text = String(data: response.body, encoding: .utf8),
            let answer = try? TrickleICEFragment(parsing: text),
            answer.usernameFragment != nil, answer.password != nil
        else {
            throw .invalidAnswer(
                url: session.location,
                reason: "the ICE restart's answer is no fragment with new credentials"
            )
        }
        session.etag = response.headers.first(name: "ETag") ?? session.etag
        return answer
    }

    private func patch(
        _ fragment: TrickleICEFragment,
        session: WHIPSession,
        ifMatch: String
    ) async throws(WHIPError) -> WHIPHTTPExchange.Response {
        try await send(
            .PATCH,
            url: session.location,
            headers: [("Content-Type", "application/trickle-ice-sdpfrag"), ("If-Match", ifMatch)],
            body: Data(fragment.sdpfrag.utf8)
        )
    }

    /// Ends `session` with `DELETE` on its session URL (RFC 9725 §4.2); requires `200 OK`
    /// (`202` and `204` are taken too). The bearer token goes with it only when the session
    /// URL is on the endpoint's origin (scheme, host and port): a `Location` elsewhere does
    /// not get the token.
    public func end(_ session: WHIPSession) async throws(WHIPError) {
        let response = try await send(.DELETE, url: session.location, headers: [], body: nil)
        guard [200, 202, 204].contains(response.status) else {
            throw .unexpectedStatus(
                method: "DELETE",
                url: session.location,
                status: response.status,
                expected: "200 OK",
                body: Self.excerpt(response.body)
            )
        }
    }

    /// The client in one line; says whether a token is set, never the token.
    public var description: String {
        "WHIP client of \(endpoint.absoluteString), token \(bearerToken == nil ? "none" : "set"), timeout \(timeout), trusting \(trust)"
    }

    // MARK: - HTTP

    /// Whether `a` and `b` have the same scheme, host and port (the default port if none).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int)? {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
            return (scheme, host, url.port ?? (scheme == "https" ? 443 : 80))
        }
        guard let a = origin(a), let b = origin(b) else { return false }
        return a == b
    }

    private var timeoutSeconds: Double {
        timeout.seconds
    }

    private func send(
        _ method: HTTPMethod,
        url: URL,
        headers: [(String, String)],
        body: Data?
    ) async throws(WHIPError) -> WHIPHTTPExchange.Response {
        var headers = headers
        if let bearerToken, Self.sameOrigin(url, endpoint) {
            headers.append(("Authorization", "Bearer \(bearerToken)"))
        }
        do {
            return try await WHIPHTTPExchange.send(
                method: method,
                url: url,
                headers: headers,
                body: body,
                trust: trust,
                timeout: timeout
            )
        } catch {
            switch error {
            case .timedOut: throw .timedOut(method: method.rawValue, url: url, seconds: timeoutSeconds)
            case let .tls(message): throw .tls(method: method.rawValue, url: url, message: message)
            case let .transport(message): throw .transport(method: method.rawValue, url: url, message: message)
            }
        }
    }

    /// `application/sdp`, with or without parameters, in any case.
    package static func isSDP(_ contentType: String) -> Bool {
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "application/sdp"
    }

    /// The start of a response body for an error message, on one line.
    static func excerpt(_ body: Data) -> String {
        let text = String(decoding: body.prefix(bodyExcerptLength), as: UTF8.self)
        return text.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }
}
