import Foundation
import SocketTestSupport
import SwiftRTCICE
import SwiftRTCMedia
import SwiftRTCPeer
import SwiftRTCSDP
import SwiftRTCSignaling
import SwiftRTCSignalingServer
import Synchronization
import TestScheduling
import Testing
import TransportTestSupport

@testable import SwiftRTCCalls

/// ``WHIPConnection`` against a ``WHIPEndpoint`` whose sessions are peer connections (both
/// real): a call made of trickled candidates alone, and an ICE restart over `PATCH` that
/// changes both sides' credentials while the audio goes on.
@Suite(.serialized, .realTime) struct WHIPConnectionTests {
    /// An endpoint session: a peer connection that receives (and counts) what is published.
    final class PeerSession: WHIPEndpointSession {
        let connection: PeerConnection
        let offer: String
        /// Refuses every ICE restart (a failing endpoint).
        let refusesRestarts: Bool
        init(connection: PeerConnection, offer: String, refusesRestarts: Bool) {
            self.connection = connection
            self.offer = offer
            self.refusesRestarts = refusesRestarts
        }
        func end() async { await connection.close() }
        func connectionStates() async -> AsyncStream<WHIPSessionConnectionState> {
            AsyncStream { $0.yield(.connecting) }
        }
        func addCandidates(_ fragment: TrickleICEFragment) async throws {
            try await connection.addCandidates(fragment)
        }
        func restartICE(_ fragment: TrickleICEFragment) async throws -> TrickleICEFragment {
            if refusesRestarts { throw CancellationError() }
            return try await connection.restartICE(answering: fragment)
        }
        /// RTP packets of audio received so far.
        func audioPackets() async -> Double {
            await connection.stats().first(.inboundRTP, kind: "audio")?.number("packetsReceived") ?? 0
        }
    }

    /// The sessions an endpoint made.
    final class Sessions: Sendable {
        private let list = Mutex<[PeerSession]>([])
        func append(_ session: PeerSession) { list.withLock { $0.append(session) } }
        var first: PeerSession? { list.withLock { $0.first } }
    }

    /// An endpoint answering on loopback, its sessions kept in `sessions`.
    static func endpoint(_ sessions: Sessions, refusingRestarts: Bool = false) -> WHIPEndpoint {
        WHIPEndpoint { offer in
            let connection = try PeerConnection(configuration: .init(gatherAddresses: ["127.0.0.1"]))
            try await connection.setRemoteDescription(SignalingDescription(type: .offer, sdp: offer))
            try await connection.setLocalDescription(try await connection.createAnswer())
            await connection.gatheringComplete()
            let session = PeerSession(connection: connection, offer: offer, refusesRestarts: refusingRestarts)
            sessions.append(session)
            return (await connection.localDescription!.sdp, session)
        }
    }

    /// A publishing connection with a tone on its audio track.
    static func publisher(_ configuration: PeerConnection.Configuration) async throws -> PeerConnection {
        let connection = try PeerConnection(configuration: configuration)
        let track = MediaStreamTrack(kind: .audio)
        try await connection.addTrack(track)
        _ = track.play(ToneGenerator())
        return connection
    }

    /// A publisher on `url` whose audio reaches the endpoint's session.
    static func publishing(
        to url: URL,
        sessions: Sessions
    ) async throws -> (PeerConnection, WHIPConnection, PeerSession) {
        let connection = try await Self.publisher(.init(gatherAddresses: ["127.0.0.1"]))
        let whip = try await WHIPConnection(connection, client: WHIPClient(endpoint: url))
        let session = try #require(sessions.first)
        #expect(await Self.waitUntil { await session.audioPackets() > 25 })
        return (connection, whip, session)
    }

    static func waitUntil(_ timeout: Duration = .seconds(15), _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Relay-only behind a TURN server that answers 200 ms late: the offer leaves with no
    /// candidate at all, so the call is made of the trickled relayed candidate alone.
    @Test func trickledCandidatesAloneMakeTheCall() async throws {
        let coturn = try await CallReconnectionTests.startCoturn()
        defer { coturn.stop() }
        let relay = try DelayingUDPRelay(to: coturn.port, delay: .milliseconds(200))
        defer { relay.stop() }
        let sessions = Sessions()
        let endpoint = Self.endpoint(sessions)
        try await withWHIPEndpoint(endpoint) { url in
            let connection = try await Self.publisher(
                .init(
                    iceServers: [
                        try IceServer(
                            url: "turn:127.0.0.1:\(relay.port)?transport=udp",
                            username: coturn.username,
                            credential: coturn.password
                        )
                    ],
                    iceTransportPolicy: .relay,
                    gatherAddresses: ["127.0.0.1"]
                )
            )
            var options = WHIPConnection.Options()
            options.trickle = true
            let whip = try await WHIPConnection(connection, client: WHIPClient(endpoint: url), options: options)
            let events = await whip.events()
            let session = try #require(sessions.first)
            #expect(!session.offer.contains("a=candidate:"), "the offer left before any candidate")
            var trickled: (Int, String?)?
            for await event in events {
                if case let .trickled(candidates, stopped) = event {
                    trickled = (candidates, stopped)
                    break
                }
            }
            #expect(trickled?.0 == 1 && trickled?.1 == nil, "\(trickled as Any)")
            #expect(await Self.waitUntil { await connection.connectionState == .connected })
            #expect(await Self.waitUntil { await session.audioPackets() > 25 })
            // The relayed candidate, then end-of-candidates.
            #expect(endpoint.stats.trickles == 2, "\(endpoint.stats)")
            let report = await connection.stats()
            #expect(report.first(.localCandidate)?.string("candidateType") == "relay")
            try await whip.end()
            #expect(endpoint.sessionIDs.isEmpty)
            await connection.close()
        }
    }

    /// ICE restarted over `PATCH` mid-call: both sides take new credentials, the endpoint a new
    /// entity tag, and the audio goes on.
    @Test func anICERestartChangesBothSidesCredentialsAndTheAudioGoesOn() async throws {
        let sessions = Sessions()
        let endpoint = Self.endpoint(sessions)
        try await withWHIPEndpoint(endpoint) { url in
            let (connection, whip, session) = try await Self.publishing(to: url, sessions: sessions)
            let before = try Self.credentials(await connection.localDescription, await connection.remoteDescription)
            let tag = await whip.session.etag

            try await whip.restartICE()

            let after = try Self.credentials(await connection.localDescription, await connection.remoteDescription)
            #expect(after.local != before.local && after.remote != before.remote, "\(before) -> \(after)")
            let server = try Self.credentials(
                await session.connection.localDescription,
                await session.connection.remoteDescription
            )
            #expect(server.local == after.remote && server.remote == after.local, "\(server) vs \(after)")
            #expect(await whip.session.etag != tag)
            #expect(await whip.stats.iceRestarts == 1)
            #expect(endpoint.stats.iceRestarts == 1)
            let packets = await session.audioPackets()
            #expect(await Self.waitUntil { await session.audioPackets() > packets + 50 }, "audio after the restart")
            #expect(await connection.connectionState == .connected)
            try await whip.end()
            await connection.close()
        }
    }

    /// An ICE restart the endpoint refuses: the offer is rolled back, the connection is stable
    /// on the credentials both sides kept, the failure is counted, and the audio goes on.
    @Test func aRefusedICERestartIsRolledBack() async throws {
        let sessions = Sessions()
        let endpoint = Self.endpoint(sessions, refusingRestarts: true)
        try await withWHIPEndpoint(endpoint) { url in
            let (connection, whip, session) = try await Self.publishing(to: url, sessions: sessions)
            let before = try Self.credentials(await connection.localDescription, await connection.remoteDescription)

            await #expect(throws: (any Error).self) { try await whip.restartICE() }

            #expect(await connection.signalingState == .stable)
            let after = try Self.credentials(await connection.localDescription, await connection.remoteDescription)
            #expect(after.local == before.local && after.remote == before.remote, "\(before) -> \(after)")
            let stats = await whip.stats
            #expect(stats.failedICERestarts == 1 && stats.iceRestarts == 0)
            let packets = await session.audioPackets()
            #expect(await Self.waitUntil { await session.audioPackets() > packets + 50 }, "audio after the refusal")
            try await whip.end()
            await connection.close()
        }
    }

    /// The ICE username fragments of a local and a remote description.
    static func credentials(
        _ local: SignalingDescription?,
        _ remote: SignalingDescription?
    ) throws -> (local: String, remote: String) {
        func ufrag(_ description: SignalingDescription?) throws -> String {
            let parsed = try SessionDescription(parsing: try #require(description).sdp)
            return try #require(parsed.media.first.map(parsed.resolved)?.iceUfrag)
        }
        return (try ufrag(local), try ufrag(remote))
    }
}

/// Runs `endpoint` on loopback during `body`, which gets its URL.
func withWHIPEndpoint<T: Sendable>(_ endpoint: WHIPEndpoint, _ body: (URL) async throws -> T) async throws -> T {
    let (urls, continuation) = AsyncStream.makeStream(of: URL.self)
    let server = Task { try await endpoint.run { url in continuation.yield(url) } }
    defer {
        server.cancel()
        Task { await endpoint.endAllSessions() }
    }
    guard let url = await urls.first(where: { _ in true }) else { throw CancellationError() }
    return try await body(url)
}
