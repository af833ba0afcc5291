import Foundation
import Testing

@testable import SwiftRTCSignalingServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The web client's conference page: served at `/conference` only when the server knows a
/// Janus, with a content security policy that lets it connect to that Janus and nowhere else
/// but its own origin; `/conference/settings` tells the page where Janus is.
@Suite struct ConferencePageTests {
    static func get(_ path: String, from server: RunningServer) async throws -> (Int, String, [String: String]) {
        var components = try #require(URLComponents(url: server.url, resolvingAgainstBaseURL: false))
        components.scheme = "http"
        components.path = path
        let (data, response) = try await URLSession.shared.data(from: try #require(components.url))
        let http = try #require(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return (http.statusCode, String(decoding: data, as: UTF8.self), headers)
    }

    @Test func theConferencePageConnectsToItsJanusOnly() async throws {
        var configuration = SignalingServer.Configuration()
        configuration.conferenceJanusURL = URL(string: "ws://10.1.2.3:8188/janus")
        let server = try await RunningServer.start(configuration)
        let (status, page, headers) = try await Self.get("/conference", from: server)
        #expect(status == 200)
        #expect(page.contains("<script type=\"module\" src=\"/webclient/conference.js\">"))
        #expect(headers["content-security-policy"]?.contains("connect-src 'self' ws://10.1.2.3:8188;") == true)
        let settings = try await Self.get("/conference/settings", from: server)
        #expect(settings.0 == 200)
        let json = try JSONSerialization.jsonObject(with: Data(settings.1.utf8)) as? [String: String]
        #expect(json == ["janus": "ws://10.1.2.3:8188/janus"])
        // Its scripts are served as the call page's are; the page itself only at its path.
        #expect(try await Self.get("/webclient/conference.js", from: server).0 == 200)
        #expect(try await Self.get("/webclient/janus-session.js", from: server).0 == 200)
        #expect(try await Self.get("/webclient/conference.html", from: server).0 == 404)
        // The call page still connects to its own origin only.
        let call = try await Self.get("/", from: server)
        #expect(call.2["content-security-policy"]?.contains("connect-src 'self';") == true)
        await server.stop()
    }

    @Test func withoutJanusThereIsNoConferencePage() async throws {
        let server = try await RunningServer.start()
        #expect(try await Self.get("/conference", from: server).0 == 404)
        #expect(try await Self.get("/conference/settings", from: server).0 == 404)
        await server.stop()
    }

    @Test(arguments: [
        ("ws://janus.example:8188", "ws://janus.example:8188"), ("wss://[::1]:8989/x", "wss://[::1]:8989"),
        ("ws://10.0.0.1", "ws://10.0.0.1"), ("http://10.0.0.1:8188", nil), ("ws://a;b:1", nil),
    ])
    func aJanusOriginIsOnlyEverAWebSocketOrigin(url: String, origin: String?) throws {
        #expect(WebClientAssets.origin(of: try #require(URL(string: url))) == origin)
    }
}
