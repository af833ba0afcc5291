import Foundation
import Hummingbird

/// The web client (`WebClient/` beside this file: `index.html` and its CSS and JavaScript
/// modules), served by ``SignalingServer`` at `/` and `/webclient/NAME` on the same origin
/// as its WebSocket, so that the page needs no cross-origin request.
///
/// The files are read once, when the server starts, from the target's resource bundle
/// (`SwiftRTC_SwiftRTCSignalingServer.resources` beside the executable). Each reply carries a
/// content security policy that lets the page load only its own files and connect only to
/// its own origin.
struct WebClientAssets: Sendable {
    struct Asset: Sendable {
        let body: ByteBuffer
        let contentType: String
    }

    /// File name → contents, e.g. `index.html`, `webclient.js`.
    let assets: [String: Asset]

    static let contentTypes = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml",
    ]

    /// Scripts, styles and images from this origin only; WebSocket connections to it only
    /// (CSP 3: `'self'` covers `ws:`/`wss:` of the same host); never framed by another site.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self' blob:; "
        + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// Reads every file of the bundled `WebClient` folder; an empty set when the bundle is
    /// missing (the server then answers 404 at `/` and says so in its log).
    static func load() -> WebClientAssets {
        guard let folder = Bundle.module.url(forResource: "WebClient", withExtension: nil),
            let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        else { return WebClientAssets(assets: [:]) }
        var assets: [String: Asset] = [:]
        for name in names {
            let suffix = String(name.split(separator: ".").last ?? "")
            guard let contentType = contentTypes[suffix],
                let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path)
            else { continue }
            assets[name] = Asset(body: ByteBuffer(bytes: data), contentType: contentType)
        }
        return WebClientAssets(assets: assets)
    }

    /// The reply for `name`, or nil when there is no such file.
    func response(for name: String) -> Response? {
        guard let asset = assets[name] else { return nil }
        return Response(
            status: .ok,
            headers: [
                .contentType: asset.contentType, .cacheControl: "no-cache",
                .contentSecurityPolicy: Self.contentSecurityPolicy,
                .xContentTypeOptions: "nosniff",
            ],
            body: ResponseBody(byteBuffer: asset.body)
        )
    }

    /// `GET /` (the page) and `GET /webclient/NAME` (its files).
    func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("/") { _, _ in
            guard let page = self.response(for: "index.html") else {
                throw HTTPError(.notFound, message: "the web client is not installed")
            }
            return page
        }
        router.get("/webclient/:name") { _, context in
            guard let name = context.parameters.get("name"), name != "index.html", let file = self.response(for: name)
            else {
                throw HTTPError(.notFound)
            }
            return file
        }
    }
}
