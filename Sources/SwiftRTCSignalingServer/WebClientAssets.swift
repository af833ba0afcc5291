import Foundation
import Hummingbird

/// The web client (`WebClient/` beside this file: `index.html` and its CSS and JavaScript
/// modules), served by ``SignalingServer`` at `/` and `/webclient/NAME` on the same origin
/// as its WebSocket, so that the page needs no cross-origin request. With a Janus address,
/// also the conference page (`conference.html`) at `/conference`, which connects to that
/// Janus (its one cross-origin connection) and learns where it is from `/conference/settings`.
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
    /// The Janus WebSocket API the conference page joins rooms on; nil: no conference page.
    let conferenceJanusURL: URL?

    /// The pages, served at their own paths rather than under `/webclient/`.
    static let pages: Set<String> = ["index.html", "conference.html"]

    static let contentTypes = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml",
    ]

    /// Scripts, styles and images from this origin only; WebSocket connections to it only
    /// (CSP 3: `'self'` covers `ws:`/`wss:` of the same host); never framed by another site.
    /// The conference page may also connect to `janus` (its origin: scheme, host and port).
    static func contentSecurityPolicy(connectingTo janus: URL? = nil) -> String {
        let janusOrigin = janus.flatMap(origin).map { " \($0)" } ?? ""
        return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self' blob:; "
            + "connect-src 'self'\(janusOrigin); base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    /// `ws://host:port` of a `ws`/`wss` URL (a CSP source); nil for anything else.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss", let host = url.host,
            !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:".contains($0) })
        else { return nil }
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed)" + (url.port.map { ":\($0)" } ?? "")
    }

    /// Reads every file of the bundled `WebClient` folder; an empty set when the bundle is
    /// missing (the server then answers 404 at `/` and says so in its log).
    static func load(conferenceJanusURL: URL? = nil) -> WebClientAssets {
        guard let folder = Bundle.module.url(forResource: "WebClient", withExtension: nil),
            let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        else { return WebClientAssets(assets: [:], conferenceJanusURL: conferenceJanusURL) }
        var assets: [String: Asset] = [:]
        for name in names {
            let suffix = String(name.split(separator: ".").last ?? "")
            guard let contentType = contentTypes[suffix],
                let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path)
            else { continue }
            assets[name] = Asset(body: ByteBuffer(bytes: data), contentType: contentType)
        }
        return WebClientAssets(assets: assets, conferenceJanusURL: conferenceJanusURL)
    }

    /// The reply for `name`, or nil when there is no such file.
    func response(for name: String) -> Response? {
        guard let asset = assets[name] else { return nil }
        return Self.reply(asset.body, contentType: asset.contentType, connectingTo: nil)
    }

    static func reply(_ body: ByteBuffer, contentType: String, connectingTo janus: URL?) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: contentType, .cacheControl: "no-cache",
                .contentSecurityPolicy: contentSecurityPolicy(connectingTo: janus),
                .xContentTypeOptions: "nosniff",
            ],
            body: ResponseBody(byteBuffer: body)
        )
    }

    /// `{"janus": URL}`: where the conference page joins rooms.
    struct ConferenceSettings: Encodable {
        let janus: String
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
            guard let name = context.parameters.get("name"), !Self.pages.contains(name),
                let file = self.response(for: name)
            else {
                throw HTTPError(.notFound)
            }
            return file
        }
        router.get("/conference") { _, _ in
            guard let janus = self.conferenceJanusURL, let page = self.assets["conference.html"] else {
                throw HTTPError(.notFound, message: "no conference rooms here (the server was started without --janus)")
            }
            return Self.reply(page.body, contentType: page.contentType, connectingTo: janus)
        }
        router.get("/conference/settings") { _, _ in
            guard let janus = self.conferenceJanusURL else { throw HTTPError(.notFound) }
            let body = try JSONEncoder().encode(ConferenceSettings(janus: janus.absoluteString))
            return Self.reply(ByteBuffer(bytes: body), contentType: "application/json", connectingTo: nil)
        }
    }
}
