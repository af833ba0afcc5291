import Foundation
import TestScheduling
import Testing
import TransportTestSupport

/// `call` and `answer` do what the call API does, each flag checked by its effect:
/// `--relay-only` relays the call through TURN (both sides' selected pairs are relayed),
/// `--max-audio-kbps` holds both Opus senders under the cap (it sends about 32 kbit/s
/// uncapped): the caller's own, and the callee's, which honours the `b=AS` of her description, `--custom-item` reaches the other side, and a too short
/// `--disconnect-timeout` is refused.
@Suite(.serialized, .realTime) struct CallSessionCLITests {
    typealias Background = CallCLITests.Background
    static let alice = "alice-token-0123456789", bob = "bob-token-0123456789"

    @Test func relayOnlyCapsAndCustomItemsTakeEffect() async throws {
        let turn = try TLSCLITests.startCoturn()
        defer { turn.stop() }
        let (server, url) = try await CallCLITests.server()
        defer { Task { _ = try? await server.terminate() } }
        let relay = ["--ice-server", turn.url(), "--ice-username", turn.username, "--ice-credential", turn.password, "--relay-only"]
        let bob = try Background(["answer", "--server", url, "--token", Self.bob, "--stats-interval", "1", "--custom-item", "answered-by=bob"] + relay)
        #expect(await bob.wait(for: "READY bob"), "\(bob.errors)")
        let call = try await Callbot.run(["call", "bob", "--server", url, "--token", Self.alice, "--duration", "4", "--stats-interval", "1",
                                          "--max-audio-kbps", "10", "--custom-item", "topic=cli"] + relay)
        #expect(call.status == 0, "\(call.stdout)\n\(call.stderr)")
        #expect(await bob.exit() == 0, "\(bob.output)")
        // Both selected pairs go through the relay.
        let callPairs = call.stdout.split(separator: "\n").filter { $0.hasPrefix("CN ") }
        let answerPairs = bob.output.split(separator: "\n").filter { $0.hasPrefix("CN ") }
        #expect(!callPairs.isEmpty && callPairs.allSatisfy { $0.contains("relay->relay") }, "\(callPairs)")
        #expect(!answerPairs.isEmpty && answerPairs.allSatisfy { $0.contains("relay->relay") }, "\(answerPairs)")
        // The items crossed: each side saw the other's.
        #expect(bob.output.contains("answer: custom items by alice: {topic=cli}"), "\(bob.output)")
        #expect(call.stdout.contains("call: custom items by bob: {answered-by=bob,topic=cli}"), "\(call.stdout)")
        // Alice's Opus sender under her 10 kbit/s cap (`AS <rate>Kbps | opus`), and bob's too.
        func audioRates(_ output: String) -> [Int] {
            output.split(separator: "\n").filter { $0.hasPrefix("AS ") }.compactMap { Int($0.dropFirst(3).prefix { $0.isNumber }) }
        }
        let (capped, uncapped) = (audioRates(call.stdout), audioRates(bob.output))
        print("call-session CLI: audio sent \(capped) kbit/s by alice, \(uncapped) by bob; pairs \(callPairs.last ?? "") / \(answerPairs.last ?? "")")
        #expect(capped.count >= 2 && capped.dropFirst().allSatisfy { $0 <= 12 }, "\(capped)")
        #expect(uncapped.count >= 2 && uncapped.dropFirst().allSatisfy { $0 <= 12 }, "\(uncapped)")
    }

    @Test func aDisconnectTimeoutUnderTenSecondsIsRefused() async throws {
        let result = try await Callbot.run(["call", "bob", "--server", "ws://127.0.0.1:1/signaling", "--token", "t", "--disconnect-timeout", "5"])
        #expect(result.status != 0 && result.stderr.contains("--disconnect-timeout must be 10 to 3600 seconds"), "\(result.stderr)")
        let items = try await Callbot.run(["answer", "--server", "ws://127.0.0.1:1/signaling", "--token", "t", "--custom-item", "novalue"])
        #expect(items.status != 0 && items.stderr.contains("--custom-item 'novalue': expected KEY=VALUE"), "\(items.stderr)")
    }
}
