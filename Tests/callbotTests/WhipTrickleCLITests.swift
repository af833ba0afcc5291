import Foundation
import SocketTestSupport
import TestScheduling
import Testing
import TransportTestSupport

/// `callbot whip --trickle`, tried as a user would, against `callbot whip-server`.
@Suite(.serialized, .realTime) struct WhipTrickleCLITests {
    typealias Background = CallCLITests.Background

    /// `callbot whip --trickle --relay-only` through a TURN server that answers 200 ms late:
    /// the offer leaves before the relayed candidate exists, which follows in a PATCH, and the
    /// call is made through it.
    @Test func whipTrickleSendsTheRelayedCandidateInAPatch() async throws {
        let turn = try TLSCLITests.startCoturn()
        defer { turn.stop() }
        let relay = try DelayingUDPRelay(to: turn.port, delay: .milliseconds(200))
        defer { relay.stop() }
        let server = try Background(["whip-server", "--port", "0", "--duration", "30", "--stats-interval", "30"])
        #expect(await server.wait(for: "READY "), "\(server.errors)")
        let endpoint = try #require(
            server.output.split(separator: "\n").first { $0.hasPrefix("READY ") }.map { String($0.dropFirst(6)) }
        )
        let client = try await Callbot.run(
            [
                "whip", endpoint, "--trickle", "--relay-only", "--ice-server", "turn:127.0.0.1:\(relay.port)",
                "--ice-username", turn.username, "--ice-credential", turn.password, "--duration", "4",
                "--stats-interval", "30",
            ]
        )
        #expect(client.status == 0, "\(client.stderr)")
        #expect(client.stderr.contains("trickled 1 candidate(s) after the offer\n"), "\(client.stderr)")
        let report = try WhepCLITests.report(in: client.stdout)
        #expect(report["local_candidate_type"] as? String == "relay", "\(report)")
        kill(server.process.processIdentifier, SIGTERM)
        _ = await server.exit()
        let counters = try #require(try WhepCLITests.report(in: server.output)["whip_endpoint"] as? [String: Any])
        // The relayed candidate, then end-of-candidates.
        #expect(counters["trickles"] as? Int == 2, "\(counters)")
    }

    /// `callbot whip` without `--ice-server` takes the TURN server `whip-server` offers in its
    /// `Link` headers (`--ice-server` of its own): the candidates it gathers there (200 ms late)
    /// are those it trickles.
    @Test func theEndpointsTURNServerFromItsLinkHeadersIsUsed() async throws {
        let turn = try TLSCLITests.startCoturn()
        defer { turn.stop() }
        let relay = try DelayingUDPRelay(to: turn.port, delay: .milliseconds(200))
        defer { relay.stop() }
        let turnURL = "turn:127.0.0.1:\(relay.port)?transport=udp"
        let server = try Background(
            [
                "whip-server", "--port", "0", "--duration", "30", "--stats-interval", "30", "--ice-server", turnURL,
                "--ice-username", turn.username, "--ice-credential", turn.password,
            ]
        )
        #expect(await server.wait(for: "READY "), "\(server.errors)")
        let endpoint = try #require(
            server.output.split(separator: "\n").first { $0.hasPrefix("READY ") }.map { String($0.dropFirst(6)) }
        )
        let client = try await Callbot.run(["whip", endpoint, "--trickle", "--duration", "3", "--stats-interval", "30"])
        #expect(client.status == 0, "\(client.stderr)")
        #expect(client.stderr.contains("ICE servers from the endpoint: \(turnURL)\n"), "\(client.stderr)")
        // The relayed candidate (and the server-reflexive one the TURN server also tells).
        let trickled = client.stderr.split(separator: "\n").first { $0.hasPrefix("callbot: trickled ") }
        #expect(
            Int(trickled?.dropFirst("callbot: trickled ".count).prefix { $0.isNumber } ?? "") ?? 0 >= 1,
            "\(client.stderr)"
        )
        #expect(!client.stderr.contains(turn.password) && !client.stdout.contains(turn.password))
        kill(server.process.processIdentifier, SIGTERM)
        _ = await server.exit()
    }
}
