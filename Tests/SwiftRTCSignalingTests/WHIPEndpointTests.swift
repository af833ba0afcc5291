import Foundation
import SwiftRTCSDP
import Synchronization
import Testing

@testable import SwiftRTCSignaling
@testable import SwiftRTCSignalingServer

@Suite struct WHIPEndpointTests {
    @Test func publishAnswersWithJSEPAndDeleteEndsTheSession() async throws {
        let created = Mutex<[RecordingSession]>([])
        let endpoint = WHIPEndpoint { offer in
            let (answer, session) = try await WHIPTestSDP.answerer(offer)
            created.withLock { $0.append(session as! RecordingSession) }
            return (answer, session)
        }
        try await withEndpoint(endpoint) { url in
            #expect(url.absoluteString.hasPrefix("http://127.0.0.1:"))
            #expect(url.path == "/whip")
            let client = WHIPClient(endpoint: url)
            let session = try await client.publish(offer: WHIPTestSDP.offer)

            // The answer is a real JSEP answer to the offer.
            let answer = try SessionDescription(parsing: session.answer)
            let negotiation = try Negotiation(offer: SessionDescription(parsing: WHIPTestSDP.offer), answer: answer)
            #expect(negotiation.media.map(\.kind) == [.audio, .video])
            #expect(negotiation.media.allSatisfy { $0.accepted })
            #expect(answer.media.first?.iceUfrag == "ANSR")

            // Location /whip/<id>, resolved against the endpoint URL.
            #expect(session.location.host == "127.0.0.1")
            #expect(session.location.port == url.port)
            let id = session.location.lastPathComponent
            #expect(session.location.path == "/whip/\(id)")
            #expect(endpoint.sessionIDs == [id])
            #expect(session.etag == "\"\(id)\"")
            let recorded = try #require(created.withLock { $0.first })
            #expect(recorded.offer == WHIPTestSDP.offer)
            #expect(recorded.endCount == 0)

            try await client.end(session)
            #expect(recorded.endCount == 1)
            #expect(endpoint.sessionIDs.isEmpty)

            // The session is gone: a second DELETE is 404.
            await #expect(
                throws: WHIPError.unexpectedStatus(
                    method: "DELETE",
                    url: session.location,
                    status: 404,
                    expected: "200 OK",
                    body: "no WHIP session \(id)"
                )
            ) {
                try await client.end(session)
            }
        }
    }

    @Test func concurrentOffersGetTheirOwnSessions() async throws {
        let endpoint = WHIPEndpoint(answerer: WHIPTestSDP.answerer)
        try await withEndpoint(endpoint) { url in
            let client = WHIPClient(endpoint: url)
            let sessions = try await withThrowingTaskGroup(of: WHIPSession.self) { group in
                for _ in 0..<4 { group.addTask { try await client.publish(offer: WHIPTestSDP.offer) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(sessions.map(\.location)).count == 4)
            #expect(Set(endpoint.sessionIDs) == Set(sessions.map(\.location.lastPathComponent)))
            try await client.end(sessions[2])
            #expect(endpoint.sessionIDs.count == 3)
            #expect(!endpoint.sessionIDs.contains(sessions[2].location.lastPathComponent))
        }
    }

    @Test func endAllSessionsEndsEachOnce() async throws {
        let sessions = Mutex<[RecordingSession]>([])
        let endpoint = WHIPEndpoint { offer in
            let session = RecordingSession(offer: offer)
            sessions.withLock { $0.append(session) }
            return ("v=0\r\n", session)
        }
        try await withEndpoint(endpoint) { url in
            let client = WHIPClient(endpoint: url)
            for _ in 0..<3 { _ = try await client.publish(offer: WHIPTestSDP.offer) }
            await endpoint.endAllSessions()
            #expect(endpoint.sessionIDs.isEmpty)
            #expect(sessions.withLock { $0.map(\.endCount) } == [1, 1, 1])
        }
    }

    /// Status codes for what a client can get wrong, as a table.
    @Test(
        arguments: [
            ("POST", "/whip", "text/plain", RequestBody("v=0\r\n"), 415, "Content-Type must be application/sdp"),
            ("POST", "/whip", nil, RequestBody("v=0\r\n"), 415, "Content-Type must be application/sdp"),
            ("POST", "/whip", "application/sdp", RequestBody(""), 400, "empty offer"),
            ("POST", "/whip", "application/sdp", RequestBody("hello"), 400, "not an SDP offer"),
            (
                "POST", "/whip", "application/sdp",
                RequestBody("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio x UDP 0\r\n"), 400, "line 5"
            ),
            (
                "POST", "/whip", "application/sdp",
                RequestBody("v=0\r\n" + String(repeating: "a=x\r\n", count: 30_000)), 413,
                "over the limit"
            ),
            ("POST", "/whip/some-session", "application/sdp", RequestBody("v=0\r\n"), 405, "not to a session URL"),
            (
                "PATCH", "/whip/some-session", "application/trickle-ice-sdpfrag",
                RequestBody("a=end-of-candidates\r\n"), 404,
                "no WHIP session some-session"
            ),
            ("DELETE", "/whip/unknown", nil, RequestBody(""), 404, "no WHIP session unknown"),
            ("GET", "/elsewhere", nil, RequestBody(""), 404, ""),
        ] as [(String, String, String?, RequestBody, Int, String)]
    )
    func badRequests(
        method: String,
        path: String,
        contentType: String?,
        body: RequestBody,
        status: Int,
        message: String
    ) async throws {
        let endpoint = WHIPEndpoint(answerer: WHIPTestSDP.answerer)
        try await withEndpoint(endpoint) { url in
            let target = URL(string: path, relativeTo: url)!.absoluteURL
            let reply = try await rawRequest(
                target,
                method: method,
                contentType: contentType,
                body: body.text.isEmpty ? nil : Data(body.text.utf8)
            )
            #expect(reply.status == status)
            #expect(message.isEmpty || reply.body.contains(message), "\(reply.body)")
            #expect(endpoint.sessionIDs.isEmpty)
        }
    }

    @Test func answererErrorsBecome400Or500WithTheirMessage() async throws {
        struct Broken: Error, CustomStringConvertible { var description: String { "peer connection closed" } }
        let endpoint = WHIPEndpoint { offer in
            if offer.contains("m=video") { throw WHIPOfferRejected("video is not accepted here") }
            throw Broken()
        }
        try await withEndpoint(endpoint) { url in
            let client = WHIPClient(endpoint: url)
            await #expect(
                throws: WHIPError.unexpectedStatus(
                    method: "POST",
                    url: url,
                    status: 400,
                    expected: "201 Created",
                    body: "offer rejected: video is not accepted here"
                )
            ) {
                try await client.publish(offer: WHIPTestSDP.offer)
            }
            await #expect(
                throws: WHIPError.unexpectedStatus(
                    method: "POST",
                    url: url,
                    status: 500,
                    expected: "201 Created",
                    body: "cannot answer the offer: peer connection closed"
                )
            ) {
                try await client.publish(offer: "v=0\r\n")
            }
        }
    }

    @Test func bearerTokenIsRequiredWhenConfigured() async throws {
        let endpoint = WHIPEndpoint(configuration: .init(bearerToken: "s3cret"), answerer: WHIPTestSDP.answerer)
        try await withEndpoint(endpoint) { url in
            do {
                _ = try await WHIPClient(endpoint: url).publish(offer: WHIPTestSDP.offer)
                Issue.record("published without a token")
            } catch {
                guard let whip = error as? WHIPError, case .unexpectedStatus(_, _, 401, _, _) = whip else {
                    throw error
                }
            }
            await #expect(throws: WHIPError.self) {
                try await WHIPClient(endpoint: url, bearerToken: "wrong").publish(offer: WHIPTestSDP.offer)
            }
            let client = WHIPClient(endpoint: url, bearerToken: "s3cret")
            let session = try await client.publish(offer: WHIPTestSDP.offer)
            // DELETE needs the token too.
            await #expect(throws: WHIPError.self) { try await WHIPClient(endpoint: url).end(session) }
            #expect(endpoint.sessionIDs.count == 1)
            try await client.end(session)
            #expect(endpoint.sessionIDs.isEmpty)
        }
    }

    /// CORS only for an endpoint that requires a token, and only on its own paths: without a
    /// token any web page a browser on the machine opens could publish to it.
    @Test func corsIsOnlyForATokenEndpointsOwnPaths() async throws {
        let origin = ["Origin": "https://elsewhere.example", "Access-Control-Request-Method": "POST"]
        let open = WHIPEndpoint(answerer: WHIPTestSDP.answerer)
        try await withEndpoint(open) { url in
            let preflight = try await rawRequest(url, method: "OPTIONS", contentType: nil, body: nil, headers: origin)
            #expect(preflight.headers["access-control-allow-origin"] == nil)
            let post = try await rawRequest(
                url,
                method: "POST",
                contentType: "application/sdp",
                body: Data(WHIPTestSDP.offer.utf8),
                headers: ["Origin": "https://elsewhere.example"]
            )
            #expect(post.status == 201)
            #expect(post.headers["access-control-allow-origin"] == nil)
        }
        let guarded = WHIPEndpoint(
            configuration: .init(bearerToken: "secret-token-0123456789"),
            answerer: WHIPTestSDP.answerer
        )
        try await withEndpoint(guarded) { url in
            let preflight = try await rawRequest(url, method: "OPTIONS", contentType: nil, body: nil, headers: origin)
            #expect(preflight.status == 204)
            #expect(preflight.headers["access-control-allow-origin"] == "*")
            let metrics = URL(string: "/metrics", relativeTo: url)!.absoluteURL
            let scrape = try await rawRequest(metrics, method: "GET", contentType: nil, body: nil, headers: origin)
            #expect(scrape.headers["access-control-allow-origin"] == nil)
        }
    }

    @Test func optionsAdvertisesSDP() async throws {
        let endpoint = WHIPEndpoint(configuration: .init(path: "ingest/"), answerer: WHIPTestSDP.answerer)
        try await withEndpoint(endpoint) { url in
            #expect(url.path == "/ingest")
            let reply = try await rawRequest(url, method: "OPTIONS", contentType: nil, body: nil)
            #expect(reply.status == 204)
            #expect(reply.headers["accept-post"] == "application/sdp")
            let session = try await WHIPClient(endpoint: url).publish(offer: WHIPTestSDP.offer)
            #expect(session.location.path.hasPrefix("/ingest/"))
        }
    }
}

/// A request body in a test table, described by its start and size when long: Swift Testing
/// prints each argument when a case starts and ends, and a 150 KB body was 30,000 lines of log.
struct RequestBody: Sendable, CustomTestStringConvertible {
    let text: String
    init(_ text: String) { self.text = text }
    var testDescription: String {
        text.utf8.count <= 80
            ? text.debugDescription : "\(text.prefix(24).debugDescription)… (\(text.utf8.count) bytes)"
    }
}
