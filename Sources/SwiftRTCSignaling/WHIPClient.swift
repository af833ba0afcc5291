import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A WHIP session created by ``WHIPClient/publish(offer:)``: the SDP answer and the session
/// URL that ends it (RFC 9725 §4.2).
public struct WHIPSession: Sendable, Hashable {
    /// The absolute session URL: the `Location` header resolved against the endpoint URL.
    public var location: URL
    /// The endpoint's SDP answer.
    public var answer: String
    /// The `ETag` header, when the endpoint sent one.
    public var etag: String?

    /// A session at `location` with the endpoint's `answer`.
    public init(location: URL, answer: String, etag: String? = nil) {
        self.location = location
        self.answer = answer
        self.etag = etag
    }
}

/// A WHIP client (RFC 9725): POSTs an SDP offer to a WHIP endpoint, takes the `201 Created`
/// answer and its `Location`, and `DELETE`s that location to end the session.
///
/// WHIP as used here is non-trickle: the offer must carry all candidates (gather first).
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
    /// The most a request may take, from sending to the last byte of the response.
    public var timeout: Duration

    /// How much of an error response's body a ``WHIPError`` keeps.
    static let bodyExcerptLength = 200

    /// A client for the WHIP endpoint at `endpoint`; each request may take up to `timeout`.
    public init(endpoint: URL, bearerToken: String? = nil, timeout: Duration = .seconds(10)) {
        self.endpoint = endpoint
        self.bearerToken = bearerToken
        self.timeout = timeout
    }

    /// POSTs `offer` as `application/sdp` and returns the answer and the session URL.
    ///
    /// Requires `201 Created`, a `Location` header and an `application/sdp` body.
    public func publish(offer: String) async throws(WHIPError) -> WHIPSession {
        var request = makeRequest(url: endpoint, method: "POST")
        request.setValue("application/sdp", forHTTPHeaderField: "Content-Type")
        request.setValue("application/sdp", forHTTPHeaderField: "Accept")
        request.httpBody = Data(offer.utf8)
        let (body, response) = try await send(request)
        guard response.statusCode == 201 else {
            throw .unexpectedStatus(method: "POST", url: endpoint, status: response.statusCode,
                                    expected: "201 Created", body: Self.excerpt(body))
        }
        guard let location = response.value(forHTTPHeaderField: "Location"), !location.isEmpty else {
            throw .missingLocation(url: endpoint)
        }
        guard let resolved = URL(string: location, relativeTo: endpoint)?.absoluteURL, resolved.scheme != nil else {
            throw .invalidLocation(url: endpoint, location: location)
        }
        let contentType = response.value(forHTTPHeaderField: "Content-Type")
        guard let contentType, Self.isSDP(contentType) else {
            throw .wrongContentType(url: endpoint, contentType: contentType)
        }
        guard let answer = String(data: body, encoding: .utf8), !answer.isEmpty else {
            throw .invalidAnswer(url: endpoint, reason: body.isEmpty ? "empty answer body" : "answer body is not UTF-8")
        }
        return WHIPSession(location: resolved, answer: answer, etag: response.value(forHTTPHeaderField: "ETag"))
    }

    /// Ends `session` with `DELETE` on its session URL (RFC 9725 §4.2); requires `200 OK`
    /// (`202` and `204` are taken too).
    public func end(_ session: WHIPSession) async throws(WHIPError) {
        let request = makeRequest(url: session.location, method: "DELETE")
        let (body, response) = try await send(request)
        guard [200, 202, 204].contains(response.statusCode) else {
            throw .unexpectedStatus(method: "DELETE", url: session.location, status: response.statusCode,
                                    expected: "200 OK", body: Self.excerpt(body))
        }
    }

    /// The client in one line; says whether a token is set, never the token.
    public var description: String {
        "WHIP client of \(endpoint.absoluteString), token \(bearerToken == nil ? "none" : "set"), timeout \(timeout)"
    }

    // MARK: - HTTP

    private var timeoutSeconds: Double {
        Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    }

    private func makeRequest(url: URL, method: String) -> URLRequest {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeoutSeconds)
        request.httpMethod = method
        if let bearerToken { request.setValue("Bearer \(bearerToken)", forHTTPHeaderField: "Authorization") }
        return request
    }

    private func send(_ request: URLRequest) async throws(WHIPError) -> (Data, HTTPURLResponse) {
        let method = request.httpMethod ?? "GET"
        let url = request.url ?? endpoint
        // FoundationNetworking's own timeouts count whole seconds (a fraction below one
        // fires at once), so they are only a backstop here; the limit is the race below.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeoutSeconds.rounded(.up) + 1
        configuration.timeoutIntervalForResource = timeoutSeconds.rounded(.up) + 1
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        var request = request
        request.timeoutInterval = configuration.timeoutIntervalForRequest
        let limit = timeout
        let outcome: Result<(Data, URLResponse), any Error>? = await withTaskGroup(of: Result<(Data, URLResponse), any Error>?.self) { [request] group in
            group.addTask {
                do { return .success(try await session.data(for: request)) } catch { return .failure(error) }
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
        switch outcome {
        case nil:
            throw .timedOut(method: method, url: url, seconds: timeoutSeconds)
        case let .success((data, response)):
            guard let http = response as? HTTPURLResponse else {
                throw .transport(method: method, url: url, message: "not an HTTP response")
            }
            return (data, http)
        case let .failure(error as URLError) where error.code == .timedOut:
            throw .timedOut(method: method, url: url, seconds: timeoutSeconds)
        case let .failure(error):
            throw .transport(method: method, url: url, message: error.localizedDescription)
        }
    }

    /// `application/sdp`, with or without parameters, in any case.
    static func isSDP(_ contentType: String) -> Bool {
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "application/sdp"
    }

    /// The start of a response body for an error message, on one line.
    static func excerpt(_ body: Data) -> String {
        let text = String(decoding: body.prefix(bodyExcerptLength), as: UTF8.self)
        return text.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }
}
