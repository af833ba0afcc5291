import Foundation
import TestScheduling
import Testing

/// Reconnection in the call-session API across a real network cut: `callbot serve` and
/// `callbot answer` (bob) in namespace `a`, `callbot call bob` (alice) in namespace `b`. Once
/// the call is connected, every UDP packet between the two is dropped (nftables; the
/// signaling WebSocket is TCP and stays up): alice's side sees the connection drop and sends
/// ICE restart offers. When the cut is lifted the restart succeeds and audio flows again.
@Suite(.realTime) struct CallNetworkCutTests {
    @Test func callReconnectsWithAnICERestartAfterANetworkCut() async throws {
        try FaultNetwork.requireTools()
        let folder = try FaultPaths.workFolder("call-network-cut")
        let callbot = FaultPaths.callbot.path
        try await FaultNetwork.with(.direct) { network in
            let (url, _) = try await Self.serveAndAnswer(network, folder: folder)
            let alice = try network.spawn(
                in: network.b,
                name: "call",
                callbot,
                [
                    "call", "bob", "--server", url, "--token", "alice-token-0123456789", "--audio-only",
                    "--duration", "40", "--stats-interval", "1",
                ],
                folder: folder
            )
            _ = try await alice.waitForLine(prefix: "call: connected with bob", timeout: .seconds(30))

            // The cut: all UDP in both namespaces dropped.
            try await network.cutUDP()
            _ = try await alice.waitForLine(prefix: "call: reconnection with bob: reconnecting", timeout: .seconds(30))

            // Lifted: the next ICE restart goes through, and audio comes back.
            try await network.restoreUDP()
            _ = try await alice.waitForLine(prefix: "call: reconnection with bob: reconnected", timeout: .seconds(30))
            let statsBefore = alice.stdout.components(separatedBy: "--- call stats with bob ---").count
            try await Task.sleep(for: .seconds(3))
            let output = alice.stdout
            let blocks = output.components(separatedBy: "--- call stats with bob ---")
            #expect(blocks.count > statsBefore, "no stats after the reconnection:\n\(output)")
            let lastAudio = try #require(blocks.last?.split(separator: "\n").first { $0.hasPrefix("AR ") }, "\(output)")
            let kbps = Int(lastAudio.dropFirst(3).prefix { $0.isNumber }) ?? 0
            #expect(kbps > 5, "audio did not come back after the reconnection: \(lastAudio)")
            #expect(!output.contains("reconnection with bob: failed"), "\(output)")
            print(
                "call network cut: \(output.split(separator: "\n").filter { $0.contains("reconnection") || $0.contains("connected with") }.joined(separator: " | ")); after: \(lastAudio)"
            )
            alice.terminate()
        }
    }
}

extension CallNetworkCutTests {
    /// `--disconnect-timeout 10` on both sides: a cut that never ends ends the call
    /// `connection_lost` about 10 s after the connection dropped (the default waits 30 s),
    /// both commands exiting 1.
    @Test func aCutLongerThanTheDisconnectTimeoutEndsTheCall() async throws {
        try FaultNetwork.requireTools()
        let folder = try FaultPaths.workFolder("call-disconnect-timeout")
        let callbot = FaultPaths.callbot.path
        try await CallSlots.shared.with {
            try await FaultNetwork.with(.direct) { network in
                let (url, bob) = try await Self.serveAndAnswer(
                    network,
                    folder: folder,
                    answerFlags: ["--disconnect-timeout", "10"]
                )
                let alice = try network.spawn(
                    in: network.b,
                    name: "call",
                    callbot,
                    [
                        "call", "bob", "--server", url, "--token", "alice-token-0123456789", "--audio-only",
                        "--duration", "60", "--stats-interval", "30", "--disconnect-timeout", "10",
                    ],
                    folder: folder
                )
                _ = try await alice.waitForLine(prefix: "call: connected with bob", timeout: .seconds(30))
                try await network.cutUDP()
                let cut = ContinuousClock.now
                let ended = try await alice.waitForLine(prefix: "call: ended ", timeout: .seconds(40))
                let after = ContinuousClock.now - cut
                print("disconnect timeout 10 s: \(ended) \(after) after the cut")
                #expect(ended.hasPrefix("connection_lost"), "\(alice.stdout)")
                // Noticing the drop takes a few seconds (consent: 5 s), then the 10 s timeout.
                #expect(after > .seconds(10) && after < .seconds(25), "ended \(after) after the cut")
                #expect(try await alice.wait(timeout: .seconds(20)) == 1)
                #expect(try await bob.wait(timeout: .seconds(30)) == 1, "\(bob.stdout)")
            }
        }
    }
}

extension CallNetworkCutTests {
    /// `callbot serve` in namespace `a` with alice's and bob's tokens, and `callbot answer` as
    /// bob there (with `answerFlags`), ready: the server's URL and bob's process.
    static func serveAndAnswer(
        _ network: FaultNetwork,
        folder: URL,
        answerFlags: [String] = []
    ) async throws -> (url: String, bob: ChildProcess) {
        let tokens = folder.appendingPathComponent("tokens.txt")
        try "alice:alice-token-0123456789\nbob:bob-token-0123456789\n".write(
            to: tokens,
            atomically: true,
            encoding: .utf8
        )
        let callbot = FaultPaths.callbot.path
        let server = try network.spawn(
            in: network.a,
            name: "serve",
            callbot,
            ["serve", "--host", network.addressA, "--port", "0", "--insecure", "--tokens", tokens.path],
            folder: folder
        )
        let url = try await server.waitForLine(prefix: "READY ", timeout: .seconds(30))
        let bob = try network.spawn(
            in: network.a,
            name: "answer",
            callbot,
            ["answer", "--server", url, "--token", "bob-token-0123456789"] + answerFlags,
            folder: folder
        )
        _ = try await bob.waitForLine(prefix: "READY bob", timeout: .seconds(30))
        return (url, bob)
    }
}

extension FaultNetwork {
    /// Drops every UDP packet arriving in either endpoint namespace (TCP goes on).
    func cutUDP() async throws {
        for namespace in [a, b] {
            _ = try await run(
                in: namespace,
                "nft",
                [
                    "add table inet srtccut; "
                        + "add chain inet srtccut input { type filter hook input priority 0; policy accept; }; "
                        + "add rule inet srtccut input meta l4proto udp drop"
                ]
            )
        }
    }

    /// Lifts ``cutUDP()``.
    func restoreUDP() async throws {
        for namespace in [a, b] { _ = try await run(in: namespace, "nft", ["delete table inet srtccut"]) }
    }
}
