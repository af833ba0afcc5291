import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle
import SwiftRTCCore
import SwiftRTCSDP
import SwiftRTCSignaling
import Synchronization

// The endpoint's routes, and how it answers: authorization, refusals, `Link` headers.
extension WHIPEndpoint {
    /// Adds the routes of the WHIP endpoint and, with a WHEP answerer, of the WHEP one.
    func addRoutes(to router: Router<WHIPRequestContext>) {
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

    /// The ``Configuration/iceServers`` as `Link` headers.
    func addLinks(to headers: inout HTTPFields) {
        for server in configuration.iceServers {
            headers.append(HTTPFields.Element(name: Self.link, value: server.linkValue))
        }
    }

    /// The `401` reply to a request without the bearer token (counted); nil when no token is
    /// required or the request carries it.
    func unauthorized(_ request: Request) -> Response? {
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
    func refused(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) -> Response {
        state.withLock { $0.stats.badRequests += 1 }
        return Self.text(status, message, headers: headers)
    }

    static func text(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(
            status: status,
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n"))
        )
    }
}
