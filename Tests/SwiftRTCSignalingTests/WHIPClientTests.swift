import Foundation
import Hummingbird
import Synchronization
import Testing

@testable import SwiftRTCSignaling
@testable import SwiftRTCSignalingServer

/// WHIPClient against servers that answer wrongly, each a real HTTP server on 127.0.0.1.
@Suite struct WHIPClientTests {
    static func answer(_ status: HTTPResponse.Status, headers: HTTPFields, body: String = "v=0\r\n") -> Response {
        Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    @Test func relativeLocationsResolveAgainstTheEndpoint() async throws {
        let router = Router()
        router.post("whip") { _, _ in
            Self.answer(
                .created,
                headers: [.location: "../sessions/7?x=1", .contentType: "application/sdp; charset=utf-8"]
            )
        }
        router.post("absolute") { _, _ in
            Self.answer(
                .created,
                headers: [.location: "http://127.0.0.1:9/elsewhere/8", .contentType: "APPLICATION/SDP"]
            )
        }
        router.delete("sessions/7") { _, _ in Response(status: .noContent) }
        try await withServer(router) { url in
            let client = WHIPClient(endpoint: url)
            let session = try await client.publish(offer: "v=0\r\n")
            #expect(session.location.absoluteString == "http://127.0.0.1:\(url.port!)/sessions/7?x=1")
            #expect(session.answer == "v=0\r\n")
            #expect(session.etag == nil)
            try await client.end(session)
            let elsewhere = try await WHIPClient(endpoint: URL(string: "/absolute", relativeTo: url)!.absoluteURL)
                .publish(offer: "v=0\r\n")
            #expect(elsewhere.location.absoluteString == "http://127.0.0.1:9/elsewhere/8")
        }
    }

    /// RFC 9725 §4.5: a `307` or `308` sends the offer elsewhere; the client follows (relative
    /// locations resolve against the URL that redirected, the session's against the one that
    /// answered), stops a loop after `maxRedirects`, and refuses a redirect that is not http(s).
    @Test func redirectsAreFollowedAndLoopsEnd() async throws {
        let posts = Mutex<[String]>([])
        let router = Router()
        router.post("old") { request, _ in
            posts.withLock { $0.append("old") }
            return Self.answer(.temporaryRedirect, headers: [.location: "new/whip"])
        }
        router.post("new/whip") { request, _ in
            posts.withLock { $0.append("new \(request.headers[.contentType] ?? "")") }
            return Self.answer(.permanentRedirect, headers: [.location: "/final/whip"])
        }
        router.post("final/whip") { request, _ in
            let offer = try await String(buffer: request.body.collect(upTo: 1 << 16))
            posts.withLock { $0.append("final \(offer)") }
            return Self.answer(.created, headers: [.location: "sessions/1", .contentType: "application/sdp"])
        }
        router.post("loop") { _, _ in Self.answer(.temporaryRedirect, headers: [.location: "loop"]) }
        router.post("ftp") { _, _ in Self.answer(.temporaryRedirect, headers: [.location: "ftp://127.0.0.1/whip"]) }
        try await withServer(router) { url in
            let session = try await WHIPClient(endpoint: URL(string: "/old", relativeTo: url)!.absoluteURL)
                .publish(offer: "v=0\r\n")
            #expect(posts.withLock { $0 } == ["old", "new application/sdp", "final v=0\r\n"])
            #expect(session.location.absoluteString == "http://127.0.0.1:\(url.port!)/final/sessions/1")
            await #expect(
                throws: WHIPError.tooManyRedirects(url: URL(string: "/loop", relativeTo: url)!.absoluteURL, count: 5)
            ) {
                _ = try await WHIPClient(endpoint: URL(string: "/loop", relativeTo: url)!.absoluteURL).publish(
                    offer: "v=0\r\n"
                )
            }
            await #expect(throws: WHIPError.self) {
                _ = try await WHIPClient(endpoint: URL(string: "/ftp", relativeTo: url)!.absoluteURL).publish(
                    offer: "v=0\r\n"
                )
            }
        }
        #expect(throws: WHIPError.self) {
            _ = try WHIPClient.follow("http://127.0.0.1/whip", from: URL(string: "https://example.test/whip")!)
        }
    }

    /// The bearer token goes to the endpoint's origin only: a session `Location` on another
    /// host or port gets its `DELETE` without it.
    @Test func theTokenGoesToTheEndpointsOriginOnly() async throws {
        let authorizations = Mutex<[String: String?]>([:])
        let elsewhere = Router()
        elsewhere.delete("s/1") { request, _ in
            authorizations.withLock { $0["elsewhere"] = request.headers[.authorization] }
            return Response(status: .ok)
        }
        try await withServer(elsewhere) { other in
            let router = Router()
            router.post("whip") { request, _ in
                authorizations.withLock { $0["post"] = request.headers[.authorization] }
                return Self.answer(
                    .created,
                    headers: [.location: "http://127.0.0.1:\(other.port!)/s/1", .contentType: "application/sdp"]
                )
            }
            router.post("here") { _, _ in
                Self.answer(.created, headers: [.location: "/s/2", .contentType: "application/sdp"])
            }
            router.delete("s/2") { request, _ in
                authorizations.withLock { $0["here"] = request.headers[.authorization] }
                return Response(status: .ok)
            }
            try await withServer(router) { url in
                let client = WHIPClient(endpoint: url, bearerToken: "secret-token-0123456789")
                try await client.end(try await client.publish(offer: "v=0\r\n"))
                let here = WHIPClient(
                    endpoint: URL(string: "/here", relativeTo: url)!.absoluteURL,
                    bearerToken: "secret-token-0123456789"
                )
                try await here.end(try await here.publish(offer: "v=0\r\n"))
            }
        }
        let seen = authorizations.withLock { $0 }
        #expect(seen["post"] == .some("Bearer secret-token-0123456789"))
        #expect(seen["elsewhere"] == .some(nil))
        #expect(seen["here"] == .some("Bearer secret-token-0123456789"))
    }

    @Test(arguments: [
        ("http://127.0.0.1:8080/whip", "http://127.0.0.1:8080/s/1", true),
        ("http://127.0.0.1/whip", "http://127.0.0.1:80/s/1", true),
        ("https://Example.org/whip", "https://example.org:443/s", true),
        ("http://127.0.0.1:8080/whip", "http://127.0.0.1:8081/s/1", false),
        ("https://example.org/whip", "http://example.org/s", false),
        ("https://example.org/whip", "https://media.example.org/s", false),
    ])
    func originsAreSchemeHostAndPort(endpoint: String, location: String, same: Bool) {
        #expect(WHIPClient.sameOrigin(URL(string: endpoint)!, URL(string: location)!) == same)
    }

    @Test func nonCreatedStatusCarriesTheBodyExcerpt() async throws {
        let router = Router()
        let long = "busy\n" + String(repeating: "x", count: 500)
        router.post("whip") { _, _ in
            Self.answer(.serviceUnavailable, headers: [.contentType: "text/plain"], body: long)
        }
        router.post("ok") { _, _ in Self.answer(.ok, headers: [.location: "/s/1", .contentType: "application/sdp"]) }
        try await withServer(router) { url in
            do {
                _ = try await WHIPClient(endpoint: url).publish(offer: "v=0\r\n")
                Issue.record("503 accepted")
            } catch {
                guard let whip = error as? WHIPError,
                    case let .unexpectedStatus(method, _, status, expected, body) = whip
                else { throw error }
                #expect(method == "POST")
                #expect(status == 503)
                #expect(expected == "201 Created")
                #expect(body.hasPrefix("busy xxx"))
                #expect(body.count == WHIPClient.bodyExcerptLength)
                #expect(whip.description.contains("HTTP 503, expected 201 Created: busy xxx"))
            }
            // 200 with everything else right is still not what RFC 9725 requires.
            let ok = URL(string: "/ok", relativeTo: url)!.absoluteURL
            await #expect(
                throws: WHIPError.unexpectedStatus(
                    method: "POST",
                    url: ok,
                    status: 200,
                    expected: "201 Created",
                    body: "v=0"
                )
            ) {
                try await WHIPClient(endpoint: ok).publish(offer: "v=0\r\n")
            }
        }
    }

    @Test func missingLocationWrongContentTypeAndEmptyAnswerAreErrors() async throws {
        let router = Router()
        router.post("nolocation") { _, _ in Self.answer(.created, headers: [.contentType: "application/sdp"]) }
        router.post("json") { _, _ in
            Self.answer(.created, headers: [.location: "/s/1", .contentType: "application/json"])
        }
        router.post("notype") { _, _ in Self.answer(.created, headers: [.location: "/s/1"]) }
        router.post("empty") { _, _ in
            Self.answer(.created, headers: [.location: "/s/1", .contentType: "application/sdp"], body: "")
        }
        try await withServer(router) { url in
            func endpoint(_ path: String) -> URL { URL(string: path, relativeTo: url)!.absoluteURL }
            await #expect(throws: WHIPError.missingLocation(url: endpoint("/nolocation"))) {
                try await WHIPClient(endpoint: endpoint("/nolocation")).publish(offer: "v=0\r\n")
            }
            await #expect(throws: WHIPError.wrongContentType(url: endpoint("/json"), contentType: "application/json")) {
                try await WHIPClient(endpoint: endpoint("/json")).publish(offer: "v=0\r\n")
            }
            await #expect(throws: WHIPError.wrongContentType(url: endpoint("/notype"), contentType: nil)) {
                try await WHIPClient(endpoint: endpoint("/notype")).publish(offer: "v=0\r\n")
            }
            await #expect(throws: WHIPError.invalidAnswer(url: endpoint("/empty"), reason: "empty answer body")) {
                try await WHIPClient(endpoint: endpoint("/empty")).publish(offer: "v=0\r\n")
            }
        }
    }

    @Test func slowServerTimesOut() async throws {
        let router = Router()
        router.post("whip") { _, _ in
            try? await Task.sleep(for: .seconds(5))
            return Self.answer(.created, headers: [.location: "/s/1", .contentType: "application/sdp"])
        }
        try await withServer(router) { url in
            let start = ContinuousClock.now
            await #expect(throws: WHIPError.timedOut(method: "POST", url: url, seconds: 0.5)) {
                try await WHIPClient(endpoint: url, timeout: .milliseconds(500)).publish(offer: "v=0\r\n")
            }
            let elapsed = ContinuousClock.now - start
            #expect(elapsed >= .milliseconds(450) && elapsed < .seconds(4), "\(elapsed)")
        }
    }

    @Test func refusedConnectionIsATransportError() async throws {
        // Nothing listens on TCP port 1 of the loopback address.
        let url = URL(string: "http://127.0.0.1:1/whip")!
        do {
            _ = try await WHIPClient(endpoint: url, timeout: .seconds(5)).publish(offer: "v=0\r\n")
            Issue.record("published to a closed port")
        } catch {
            guard case .transport(method: "POST", url: url, message: _) = error else { throw error }
        }
    }

    @Test func bearerTokenIsSent() async throws {
        let router = Router()
        router.post("whip") { request, _ in
            Self.answer(
                .created,
                headers: [.location: "/s/1", .contentType: "application/sdp"],
                body: "v=0\r\n" + (request.headers[.authorization] ?? "none")
            )
        }
        try await withServer(router) { url in
            let withToken = try await WHIPClient(endpoint: url, bearerToken: "t0k").publish(offer: "v=0\r\n")
            let without = try await WHIPClient(endpoint: url).publish(offer: "v=0\r\n")
            #expect(withToken.answer == "v=0\r\nBearer t0k")
            #expect(without.answer == "v=0\r\nnone")
        }
    }
}
