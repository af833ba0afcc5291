import Foundation
import SwiftRTCSDP
import Synchronization
import Testing

@testable import SwiftRTCSignaling
@testable import SwiftRTCSignalingServer

/// `PATCH` of a WHIP session (RFC 9725 §4.3): trickled candidates reach the session with the
/// right entity tag only, an ICE restart answers with a new fragment and a new tag, each
/// precondition and limit has its status, and a session that takes no `PATCH` says so.
@Suite struct WHIPPatchTests {
    /// A session that keeps the fragments it is given and answers restarts with "RSTR".
    final class TrickleSession: WHIPEndpointSession {
        let trickled = Mutex<[TrickleICEFragment]>([])
        let restarts = Mutex<[TrickleICEFragment]>([])
        func end() async {}
        func connectionStates() async -> AsyncStream<WHIPSessionConnectionState> {
            AsyncStream {
                $0.yield(.connected)
                $0.finish()
            }
        }
        func addCandidates(_ fragment: TrickleICEFragment) async throws {
            trickled.withLock { $0.append(fragment) }
        }
        func restartICE(_ fragment: TrickleICEFragment) async throws -> TrickleICEFragment {
            restarts.withLock { $0.append(fragment) }
            return TrickleICEFragment(
                usernameFragment: "RSTR",
                password: "restartedpasswordof24chr",
                mid: "0",
                candidates: ["candidate:1 1 udp 2130706431 127.0.0.1 40000 typ host"],
                endOfCandidates: true
            )
        }
    }

    static let candidate = "candidate:842163049 1 udp 1677729535 192.0.2.7 54321 typ srflx raddr 10.0.0.2 rport 54321"

    @Test func candidatesAndRestartsReachTheSessionUnderTheirPreconditions() async throws {
        let session = TrickleSession()
        var configuration = WHIPEndpoint.Configuration()
        configuration.maxICERestarts = 1
        let endpoint = WHIPEndpoint(configuration: configuration) { _ in ("v=0\r\n", session) }
        try await withEndpoint(endpoint) { url in
            let client = WHIPClient(endpoint: url)
            var published = try await client.publish(offer: WHIPTestSDP.offer)
            let fragment = TrickleICEFragment(
                usernameFragment: "OFFR",
                password: "offerpasswordof24charsxx",
                mid: "0",
                candidates: [Self.candidate]
            )
            #expect(try await client.trickle(fragment, to: published))
            #expect(try await client.trickle(TrickleICEFragment(mid: "0", endOfCandidates: true), to: published))
            #expect(session.trickled.withLock { $0.map(\.candidates) } == [[Self.candidate], []])
            #expect(session.trickled.withLock { $0.last?.endOfCandidates } == true)

            // Preconditions and bodies, each refused with its status and not passed on.
            let body = Data(fragment.sdpfrag.utf8)
            let sdpfrag = "application/trickle-ice-sdpfrag"
            let refusals: [(String?, [String: String], Data, Int)] = [
                (sdpfrag, [:], body, 428),
                (sdpfrag, ["If-Match": "\"another\""], body, 412),
                ("application/sdp", ["If-Match": published.etag ?? ""], body, 415),
                (sdpfrag, ["If-Match": published.etag ?? ""], Data("a=candidate:garbage\r\n".utf8), 400),
                (
                    sdpfrag, ["If-Match": published.etag ?? ""],
                    Data(String(repeating: "a=x\r\n", count: 5_000).utf8), 413
                ),
                (sdpfrag, ["If-Match": "*"], body.prefix(0) + Data("a=end-of-candidates\r\n".utf8), 400),
            ]
            for (contentType, headers, body, status) in refusals {
                let reply = try await rawRequest(
                    published.location,
                    method: "PATCH",
                    contentType: contentType,
                    body: body,
                    headers: headers
                )
                #expect(reply.status == status, "\(headers) \(reply.body)")
            }
            #expect(session.trickled.withLock { $0.count } == 2)

            // An ICE restart: the session's new fragment, and a new entity tag from then on.
            let oldTag = try #require(published.etag)
            let answer = try await client.restartICE(
                TrickleICEFragment(
                    usernameFragment: "NEW1",
                    password: "anotherpasswordof24chars",
                    mid: "0",
                    candidates: [Self.candidate],
                    endOfCandidates: true
                ),
                of: &published
            )
            #expect(answer.usernameFragment == "RSTR" && answer.password == "restartedpasswordof24chr")
            #expect(answer.candidates.count == 1 && answer.endOfCandidates)
            #expect(session.restarts.withLock { $0.map(\.usernameFragment) } == ["NEW1"])
            #expect(published.etag != oldTag)
            let stale = try await rawRequest(
                published.location,
                method: "PATCH",
                contentType: sdpfrag,
                body: body,
                headers: ["If-Match": oldTag]
            )
            #expect(stale.status == 412)
            #expect(try await client.trickle(fragment, to: published))

            // Past maxICERestarts: 429, counted.
            let again = try await rawRequest(
                published.location,
                method: "PATCH",
                contentType: sdpfrag,
                body: Data(TrickleICEFragment(usernameFragment: "NEW2", password: "p").sdpfrag.utf8),
                headers: ["If-Match": "*"]
            )
            #expect(again.status == 429)
            let stats = endpoint.stats
            #expect(stats.trickles == 3 && stats.iceRestarts == 1 && stats.rejectedRestarts == 1, "\(stats)")
        }
    }

    @Test func aSessionThatTakesNoPatchSaysSo() async throws {
        let endpoint = WHIPEndpoint { offer in ("v=0\r\n", RecordingSession(offer: offer)) }
        try await withEndpoint(endpoint) { url in
            let client = WHIPClient(endpoint: url)
            let published = try await client.publish(offer: WHIPTestSDP.offer)
            let fragment = TrickleICEFragment(mid: "0", candidates: [Self.candidate])
            #expect(try await client.trickle(fragment, to: published) == false)
            #expect(endpoint.stats.trickles == 0)
        }
    }
}
