import Foundation

/// Why a WHIP (RFC 9725) request of ``WHIPClient`` failed. Each case names the request
/// (method and URL) and what came back instead of what was expected.
public enum WHIPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server answered with another status than the one RFC 9725 requires
    /// (`201 Created` for the offer, `200 OK` for `DELETE`); `body` is the start of its body.
    case unexpectedStatus(method: String, url: URL, status: Int, expected: String, body: String)
    /// A `201 Created` without a `Location` header (RFC 9725 §4.2 requires it).
    case missingLocation(url: URL)
    /// A `Location` header that is not an http(s) URL, even relative to the endpoint (of a
    /// session, or of a redirect).
    case invalidLocation(url: URL, location: String)
    /// The `Location` of an `https://` endpoint's session or redirect is not `https://` (its
    /// `DELETE`, or the offer, would go in the clear).
    case insecureLocation(url: URL, location: String)
    /// The answer's `Content-Type` is not `application/sdp`.
    case wrongContentType(url: URL, contentType: String?)
    /// The answer body is empty or not UTF-8.
    case invalidAnswer(url: URL, reason: String)
    /// The offer was redirected (`307`/`308`) more than ``WHIPClient/maxRedirects`` times.
    case tooManyRedirects(url: URL, count: Int)
    /// No complete response within the client's timeout.
    case timedOut(method: String, url: URL, seconds: Double)
    /// The request did not get a response (connection refused, reset, bad URL...).
    case transport(method: String, url: URL, message: String)
    /// The TLS connection to an `https://` endpoint failed: its certificate is not trusted (see
    /// ``TLSTrust``), not for its host, or it does not speak TLS. Never ignored.
    case tls(method: String, url: URL, message: String)

    /// The failure in one line, naming the request.
    public var description: String {
        switch self {
        case let .unexpectedStatus(method, url, status, expected, body):
            let excerpt = body.isEmpty ? "" : ": \(body)"
            return "WHIP \(method) \(url.absoluteString): HTTP \(status), expected \(expected)\(excerpt)"
        case let .missingLocation(url):
            return "WHIP POST \(url.absoluteString): 201 Created without a Location header"
        case let .invalidLocation(url, location):
            return "WHIP POST \(url.absoluteString): Location '\(location)' is not a URL"
        case let .insecureLocation(url, location):
            return
                "WHIP POST \(url.absoluteString): Location '\(location)' is not https: the session's DELETE would go in the clear"
        case let .wrongContentType(url, contentType):
            return
                "WHIP POST \(url.absoluteString): answer Content-Type is '\(contentType ?? "none")', expected application/sdp"
        case let .invalidAnswer(url, reason):
            return "WHIP POST \(url.absoluteString): \(reason)"
        case let .tooManyRedirects(url, count):
            return "WHIP POST \(url.absoluteString): redirected more than \(count) times"
        case let .timedOut(method, url, seconds):
            return "WHIP \(method) \(url.absoluteString): no response within \(seconds) s"
        case let .transport(method, url, message), let .tls(method, url, message):
            return "WHIP \(method) \(url.absoluteString): \(message)"
        }
    }
}
