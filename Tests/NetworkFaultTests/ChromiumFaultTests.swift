import Foundation
import TestScheduling
import Testing

/// The 10% loss condition of ``NetworkFaultTests`` with headless Chromium (Interop/
/// browser_peer.py, Debian `chromium` + `chromium-driver`) in the namespaces:
///
/// - `chromiumReference`: Chromium against Chromium, the reference. Its figures must reach
///   loose thresholds (if they do not, the harness is broken, not the stack under test).
/// - `callbotWithChromium`: Chromium's WHIP endpoint with `callbot whip` dialling it. What we
///   receive from Chromium is held to the loss10 thresholds ours must meet; what Chromium
///   receives from us (our sender's retransmissions and keyframes) to the loose ones.
///
/// Both print `FIGURES loss10-...` lines beside the callbot-only ones.
@Suite(.realTime) struct ChromiumFaultTests {
    static let lossPercent = 10
    /// What Chromium reaches at 10% loss, with margin (measured: see Tests/NetworkFaultTests/README.md).
    static let loose = Thresholds(minDecodedShare: 0.70, maxFreezeMs: 2000, maxConcealment: 0.20)
    static var ours: Thresholds {
        NetworkFaultTests.conditions.first { $0.name == "loss10" }?.thresholds
            ?? Thresholds(minDecodedShare: 1, maxFreezeMs: 0, maxConcealment: 0)
    }

    static func requireChromium() throws {
        guard FaultPaths.which("chromium") != nil || FaultPaths.which("chromium-browser") != nil else {
            throw FaultFailure("chromium is missing; install it with: apt-get install -y chromium")
        }
        guard FaultPaths.which("chromedriver") != nil else {
            throw FaultFailure("chromedriver is missing; install it with: apt-get install -y chromium-driver")
        }
        guard ProjectPython.exists else { throw FaultFailure(ProjectPython.missing("the interpreter")) }
    }

    /// Runs one 10%-loss call (a browser is heavy: the call takes every slot).
    static func lossCall(
        _ name: String,
        server: FaultCall.Peer,
        client: FaultCall.Peer
    ) async throws -> (server: CallReport, client: CallReport, net: String) {
        try requireChromium()
        let folder = try FaultPaths.workFolder(name)
        return try await CallSlots.shared.with(weight: 2) {
            try await FaultNetwork.with(.direct) { network in
                try await network.addLoss(percent: lossPercent)
                let call = FaultCall(network: network, folder: folder)
                let (serverReport, clientReport, _) = try await call.run(
                    server: server,
                    client: client,
                    seconds: NetworkFaultTests.callSeconds
                ) { () }
                let counters = try await network.lossCounters()
                let share = counters.seen > 0 ? Double(counters.dropped) / Double(counters.seen) : 0
                let net =
                    "nft udp_seen=\(counters.seen) udp_dropped=\(counters.dropped) (\(String(format: "%.1f", share * 100))%)"
                #expect(counters.seen > 500 && abs(share * 100 - Double(lossPercent)) < 4, "\(name): \(net)")
                return (serverReport, clientReport, net)
            }
        }
    }

    @Test func chromiumReference() async throws {
        let (server, client, net) = try await Self.lossCall(
            "loss10-chromium-reference",
            server: .chromium,
            client: .chromium
        )
        let directions = [
            MediaDirection(sender: client, receiver: server), MediaDirection(sender: server, receiver: client),
        ]
        print(
            "FIGURES loss10 chromium-reference: " + directions.map(\.figures).joined(separator: " ;; ")
                + " ;; net: \(net)"
        )
        for direction in directions { direction.expect(Self.loose, condition: "loss10 chromium reference") }
    }

    @Test func callbotWithChromium() async throws {
        let (server, client, net) = try await Self.lossCall(
            "loss10-callbot-chromium",
            server: .chromium,
            client: .callbot
        )
        let fromChromium = MediaDirection(sender: server, receiver: client),
            toChromium = MediaDirection(sender: client, receiver: server)
        print(
            "FIGURES loss10 callbot-with-chromium: " + fromChromium.figures + " ;; " + toChromium.figures
                + " ;; net: \(net)"
        )
        fromChromium.expect(Self.ours, condition: "loss10, callbot receiving from Chromium")
        toChromium.expect(Self.loose, condition: "loss10, Chromium receiving from callbot")
    }
}
