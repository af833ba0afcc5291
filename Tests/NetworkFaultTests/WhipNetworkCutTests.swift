import Foundation
import TestScheduling
import Testing

/// A WHIP session across a real network cut: `callbot whip-server` in namespace `a`,
/// `callbot whip` in namespace `b`. Once the audio flows, every UDP packet between the two is
/// dropped (the HTTP of WHIP is TCP and stays up): the client sees its connection drop and
/// restarts ICE with a `PATCH` (RFC 9725 §4.3.2) 5 s later, and every 5 s while it stays
/// down. When the cut is lifted the restarted ICE connects and the audio comes back to the
/// same session.
@Suite(.realTime) struct WhipNetworkCutTests {
    @Test func whipRestartsICEWithAPatchAfterANetworkCut() async throws {
        try FaultNetwork.requireTools()
        let folder = try FaultPaths.workFolder("whip-network-cut")
        let callbot = FaultPaths.callbot.path
        let token = "whip-cut-token-0123456789"
        try await FaultNetwork.with(.direct) { network in
            let server = try network.spawn(
                in: network.a,
                name: "whip-server",
                callbot,
                [
                    "whip-server", "--host", network.addressA, "--port", "0", "--insecure", "--token", token,
                    "--no-video", "--stats-interval", "1",
                ],
                folder: folder
            )
            let url = try await server.waitForLine(prefix: "READY ", timeout: .seconds(30))
            let client = try network.spawn(
                in: network.b,
                name: "whip",
                callbot,
                ["whip", url, "--token", token, "--no-video", "--duration", "60", "--stats-interval", "30"],
                folder: folder
            )
            #expect(await Self.audio(in: server, above: 5, within: .seconds(30)), "\(server.stderrTail())")

            try await network.cutUDP()
            let cut = ContinuousClock.now
            #expect(
                await Self.wait(.seconds(30)) { Self.restarts(client) > 0 },
                "no ICE restart during the cut: \(client.stderrTail())"
            )
            try await Task.sleep(until: cut + .seconds(15))
            let duringCut = Self.restarts(client)
            let statsAtRestore = server.stdout.count
            try await network.restoreUDP()
            let restored = ContinuousClock.now

            // The restarted ICE connects once the cut is lifted, and the audio comes back to
            // the same session.
            let back = await Self.audio(in: server, above: 5, within: .seconds(20), after: statsAtRestore)
            #expect(back, "no audio after the cut:\n\(server.stderrTail())")
            print(
                "whip network cut: \(duringCut) ICE restart(s) 15 s into the cut, \(Self.restarts(client)) in all; audio back \(ContinuousClock.now - restored) after the cut was lifted"
            )
            #expect(!server.stderr.contains("WHIP session ended"), "\(server.stderrTail())")
            #expect(server.stderr.contains("ICE restarted"), "\(server.stderrTail())")
            client.terminate()
            #expect(try await client.wait(timeout: .seconds(20)) == 0, "\(client.stderrTail())")
            server.terminate()
            _ = try await server.wait(timeout: .seconds(20))
            let endpoint = server.stdout.split(separator: "\n").last { $0.hasPrefix("REPORT ") }
            #expect(endpoint?.contains("\"sessions_created\":1,") == true, "\(endpoint ?? "no report")")
            #expect(endpoint?.contains("\"ice_restarts\":0") == false, "\(endpoint ?? "no report")")
        }
    }

    /// The ICE restarts `client` has logged.
    static func restarts(_ client: ChildProcess) -> Int {
        client.stderr.components(separatedBy: "callbot: ICE restarted\n").count - 1
    }

    /// Whether the server's stats show audio above `kbps` (an `AR` line past `offset` of its
    /// output) within `timeout`.
    static func audio(
        in server: ChildProcess,
        above kbps: Int,
        within timeout: Duration,
        after offset: Int = 0
    ) async -> Bool {
        await wait(timeout) {
            let output = server.stdout
            guard output.count > offset else { return false }
            return output.dropFirst(offset).split(separator: "\n").contains { line in
                line.hasPrefix("AR ") && Int(line.dropFirst(3).prefix { $0.isNumber }) ?? 0 > kbps
            }
        }
    }

    static func wait(_ timeout: Duration, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return condition()
    }
}
