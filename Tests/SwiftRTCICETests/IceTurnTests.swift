import Foundation
import SwiftRTCSDP
import Testing
import TransportTestSupport

@testable import SwiftRTCICE

/// Agents through a real coturn `turnserver` on loopback, started and stopped by each test.
@Suite(.serialized) struct IceTurnTests {
    @Test func twoRelayOnlyAgentsConnectThroughCoturn() async throws {
        let coturn = try Coturn()
        defer { coturn.stop() }
        try coturn.waitUntilReady()
        let started = ContinuousClock.now
        let pair = try await AgentPair(offerer: coturn.relayOnly(.controlling), answerer: coturn.relayOnly(.controlled))
        let offererInbox = Inbox(), answererInbox = Inbox()
        pair.offerer.demultiplexer.setHandler(offererInbox.handler, for: .rtp)
        pair.answerer.demultiplexer.setHandler(answererInbox.handler, for: .rtp)

        #expect(await pair.offererStates.wait(for: .completed))
        #expect(await pair.answererStates.wait(for: .completed))
        print("ICE connect through coturn, relay-only: \(ContinuousClock.now - started)")

        // Only relayed candidates leave either side, all on the coturn relay.
        for gathering in [pair.offererGathering, pair.answererGathering] {
            #expect(await gathering.wait { $0 == .complete } != nil)
            let candidates = gathering.all.compactMap { event -> IceCandidate? in
                if case .candidate(let candidate) = event { candidate } else { nil }
            }
            #expect(!candidates.isEmpty)
            #expect(candidates.allSatisfy { $0.type == .relay && $0.address == "127.0.0.1" })
        }
        let selected = try #require(pair.offerer.selectedPair)
        #expect(selected.local.type == .relay && selected.remote.type == .relay)
        #expect(selected.typesDescription == "relay->relay/udp")
        // TURN wraps each datagram: sending stays with libnice.
        #expect(!pair.offerer.core.directRoute.isActive && !pair.answerer.core.directRoute.isActive)

        for index in 0..<10 {
            #expect(pair.offerer.send(datagram(kind: 0x80, "relayed to answerer \(index)")))
            #expect(pair.answerer.send(datagram(kind: 0x80, "relayed to offerer \(index)")))
        }
        #expect(await answererInbox.wait { $0.count == 10 })
        #expect(await offererInbox.wait { $0.count == 10 })
        #expect(Set(answererInbox.all) == Set((0..<10).map { datagram(kind: 0x80, "relayed to answerer \($0)") }))
        // A batch goes through libnice one datagram at a time.
        let batch = (0..<5).map { datagram(kind: 0x80, "relayed batch \($0)") }
        #expect(pair.offerer.send(batch: batch) == 5)
        #expect(await answererInbox.wait { $0.count == 15 })
        #expect(Set(answererInbox.all.suffix(5)) == Set(batch))
        #expect(pair.offererErrors.all.isEmpty && pair.answererErrors.all.isEmpty)
        await pair.close()
    }

    @Test func relayOverTCPToTheTurnServerConnects() async throws {
        let coturn = try Coturn()
        defer { coturn.stop() }
        try coturn.waitUntilReady()
        let server = try IceServer(
            url: "turn:127.0.0.1:\(coturn.port)?transport=tcp",
            username: coturn.username,
            credential: coturn.password
        )
        func relayOnly(_ role: IceAgent.Role) -> IceAgent.Configuration {
            IceAgent.Configuration(
                role: role,
                servers: [server],
                transportPolicy: .relay,
                localAddresses: ["127.0.0.1"]
            )
        }
        let pair = try await AgentPair(offerer: relayOnly(.controlling), answerer: relayOnly(.controlled))
        let inbox = Inbox()
        pair.answerer.demultiplexer.setHandler(inbox.handler, for: .rtp)
        #expect(await pair.offererStates.wait(for: .completed))
        #expect(await pair.answererStates.wait(for: .completed))
        let selected = try #require(pair.offerer.selectedPair)
        #expect(selected.local.type == .relay && selected.remote.type == .relay)
        #expect(pair.offerer.send(datagram(kind: 0x80, "over TURN/TCP")))
        #expect(await inbox.wait { $0 == [datagram(kind: 0x80, "over TURN/TCP")] })
        await pair.close()
    }

    @Test func wrongTurnCredentialsGiveAClearErrorNamingTheServer() async throws {
        let coturn = try Coturn()
        defer { coturn.stop() }
        try coturn.waitUntilReady()
        let server = try IceServer(url: coturn.url(), username: coturn.username, credential: "wrong")
        let agent = try IceAgent(
            configuration: .init(
                role: .controlling,
                servers: [server],
                transportPolicy: .relay,
                localAddresses: ["127.0.0.1"]
            )
        )
        let errors = Recorder(agent.errors)
        let gathering = Recorder(agent.gathering)
        try await agent.startGathering()

        #expect(await gathering.wait { $0 == .complete } != nil, "gathering ends instead of hanging")
        #expect(!gathering.all.contains { if case .candidate = $0 { true } else { false } })
        let error = try #require(await errors.wait(for: .seconds(5)) { _ in true })
        print("wrong TURN credentials: \(error)")
        #expect(error == .turnAllocationFailed(server: server, stunErrorCode: 401, reason: "Unauthorized"))
        #expect("\(error)".contains("turn:127.0.0.1:\(coturn.port)?transport=udp") && "\(error)".contains("401"))
        await agent.close()
    }

    @Test func unreachableTurnServerIsReportedWithoutAnErrorCode() async throws {
        let port = try freeUDPPort()  // nothing listens there
        let server = try IceServer(url: "turn:127.0.0.1:\(port)", username: "user", credential: "pass")
        let agent = try IceAgent(
            configuration: .init(
                role: .controlling,
                servers: [server],
                transportPolicy: .relay,
                localAddresses: ["127.0.0.1"]
            )
        )
        let errors = Recorder(agent.errors)
        try await agent.startGathering()
        let error = try #require(await errors.wait(for: .seconds(20)) { _ in true })
        guard case .turnAllocationFailed(let reported, nil, _) = error else {
            Issue.record("expected a TURN failure without a STUN code, got \(error)")
            return
        }
        #expect(reported == server)
        await agent.close()
    }
}
