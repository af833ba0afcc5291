import Hummingbird
import SwiftRTCSignaling

/// CORS for ``WHIPEndpoint``, so that a page on another origin can publish with `fetch`
/// (RFC 9725 §4.1 and the Fetch standard's CORS protocol).
///
/// - A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) is answered
///   here, `204`, without a bearer token (a browser never sends credentials on a preflight):
///   the methods and request headers WHIP uses, cached for a day.
/// - Every other reply to a request with `Origin` allows any origin and exposes `Location`
///   (the session URL), `ETag`, `Link` and `Accept-Post`, which a page could not read otherwise.
///
/// Any origin is allowed because the endpoint authenticates with a bearer token, never with
/// cookies: a page learns nothing it could not learn with the token itself. So CORS is on only
/// when the endpoint requires a token (``WHIPEndpoint/Configuration/bearerToken``), and only
/// on its own paths: a page of any site a browser on the machine visits cannot publish to a
/// tokenless endpoint on loopback, nor read its `/metrics`.
struct WHIPCORSMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Whether the endpoint requires a bearer token (CORS is off without one).
    let requiresToken: Bool
    /// The endpoint's paths (WHIP's, and WHEP's when served): CORS covers them and their
    /// session URLs only.
    let paths: [String]

    static var allowedMethods: String { "POST, DELETE, PATCH, OPTIONS" }
    static var allowedHeaders: String { "Authorization, Content-Type, If-Match" }
    static var exposedHeaders: String { "Location, ETag, Link, Accept-Post" }
    /// How long a browser may reuse a preflight's answer: a day (browsers cap it lower).
    static var maxAgeSeconds: String { "86400" }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard requiresToken, request.headers[.origin] != nil,
            paths.contains(where: { request.uri.path == $0 || request.uri.path.hasPrefix($0 + "/") })
        else { return try await next(request, context) }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            return Response(
                status: .noContent,
                headers: [
                    .accessControlAllowOrigin: "*", .accessControlAllowMethods: Self.allowedMethods,
                    .accessControlAllowHeaders: Self.allowedHeaders, .accessControlMaxAge: Self.maxAgeSeconds,
                ]
            )
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // A refusal thrown by a route (404...) still needs the header for the page to read it.
            response = try error.response(from: request, context: context)
        }
        response.headers[.accessControlAllowOrigin] = "*"
        response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
        return response
    }
}
