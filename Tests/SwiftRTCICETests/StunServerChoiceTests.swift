import Foundation
import TestScheduling
import Testing
import TransportTestSupport

@testable import SwiftRTCICE

/// libnice gathers from one STUN server: of several, the agent uses the first in the configured
/// order that answers a Binding request, here a real coturn beside a port where nothing listens.
@Suite(.serialized) struct StunServerChoiceTests {
    /// An agent gathering on loopback with `servers`; the STUN server it chose.
    static func chosen(_ servers: [IceServer]) async throws -> IceServer? {
        let agent = try IceAgent(
            configuration: .init(role: .controlling, servers: servers, localAddresses: ["127.0.0.1"])
        )
        try await agent.startGathering()
        let chosen = agent.stunServer
        await agent.close()
        return chosen
    }

    @Test func aDeadFirstServerIsPassedOverForOneThatAnswers() async throws {
        let coturn = try Coturn()
        defer { coturn.stop() }
        try coturn.waitUntilReady()
        let live = try IceServer(url: "stun:127.0.0.1:\(coturn.port)")
        let dead = try IceServer(url: "stun:127.0.0.1:\(try freeUDPPort())")  // nothing listens there
        #expect(try await Self.chosen([dead, live]) == live)
        // Both answering: the configured order decides.
        let second = try IceServer(url: "stun:localhost:\(coturn.port)")
        #expect(try await Self.chosen([live, second]) == live)
        #expect(try await Self.chosen([second, live]) == second)
    }

    @Test func withNoneAnsweringTheFirstIsUsedAndOneIsNeverAsked() async throws {
        let first = try IceServer(url: "stun:127.0.0.1:\(try freeUDPPort())")
        let second = try IceServer(url: "stun:127.0.0.1:\(try freeUDPPort())")
        #expect(try await Self.chosen([first, second]) == first)
        #expect(try await Self.chosen([second]) == second)
        #expect(try await Self.chosen([]) == nil)
    }

    /// The Binding exchange itself, against coturn and against nothing.
    @Test func aBindingRequestIsAnsweredBySTUNAndNotByAClosedPort() async throws {
        let coturn = try Coturn()
        defer { coturn.stop() }
        try coturn.waitUntilReady()
        let port = coturn.port, closed = try freeUDPPort()
        #expect(try await offThePool { StunServerChoice.answers(address: "127.0.0.1", port: port) })
        #expect(try await !offThePool { StunServerChoice.answers(address: "127.0.0.1", port: closed) })
    }
}
