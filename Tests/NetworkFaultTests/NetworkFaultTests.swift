import Foundation
import TestScheduling
import Testing

/// callbot against callbot under bad networks, inside network namespaces the tests create
/// (root only; see README.md): a clean link (the control), random loss of 5, 10 and 20%
/// (nftables `numgen random`), one-way delay of 100 ± 30 ms, reordering and duplication (the
/// `swiftrtc-impair` bridge), and a 500 kbit/s rate limit (tc tbf), each on both directions.
/// Each condition is a 10 s call; both directions of media must reach what a serious stack
/// reaches (decoded share of the sent video frames, longest freeze, audio concealment; under
/// the rate limit, a bandwidth estimate under the limit and little loss at the bottleneck over
/// the last 3 s). Every figure is printed on one `FIGURES <condition>` line.
@Suite(.realTime) struct NetworkFaultTests {
    /// What the network does to the call.
    enum Impairment: Sendable {
        /// Nothing: the control, the same call on a clean link.
        case none
        /// nftables drops this share (%) of the UDP packets entering each endpoint namespace.
        case loss(percent: Int)
        /// tc tbf limits each endpoint's egress to this many kbit/s.
        case rateLimit(kbit: Int)
        /// swiftrtc-impair flags for the UDP frames crossing the middle namespace.
        case bridge([String])

        var layout: FaultNetwork.Layout {
            if case .bridge = self { return .bridged }
            return .direct
        }
    }

    struct Condition: Sendable, CustomTestStringConvertible {
        var name: String
        var impairment: Impairment
        var thresholds: Thresholds
        var testDescription: String { name }
    }

    static let callSeconds = 10

    static let conditions: [Condition] = [
        Condition(
            name: "clean",
            impairment: .none,
            thresholds: Thresholds(minDecodedShare: 0.97, maxFreezeMs: 300, maxConcealment: 0.02)
        ),
        Condition(
            name: "loss5",
            impairment: .loss(percent: 5),
            thresholds: Thresholds(minDecodedShare: 0.95, maxFreezeMs: 500, maxConcealment: 0.07)
        ),
        // Audio concealment follows the drop actually made (10% ± 4): our Opus FEC recovers
        // a few packets where Chromium's recovers dozens, so 0.07-0.13 measured (Chromium 0.06-0.10).
        Condition(
            name: "loss10",
            impairment: .loss(percent: 10),
            thresholds: Thresholds(minDecodedShare: 0.90, maxFreezeMs: 1000, maxConcealment: 0.15)
        ),
        // At 20% each way a fifth of the NACKs and retransmissions are lost too, and the
        // estimate falls to ~50 kbit/s (a few frames per second, each loss weighs more):
        // 71-95% of frames decoded in the runs so far, freezes under 500 ms.
        Condition(
            name: "loss20",
            impairment: .loss(percent: 20),
            thresholds: Thresholds(minDecodedShare: 0.65, maxFreezeMs: 2000, maxConcealment: 0.25)
        ),
        Condition(
            name: "delay100-jitter30",
            impairment: .bridge(["--delay-ms", "100", "--jitter-ms", "30"]),
            thresholds: Thresholds(minDecodedShare: 0.95, maxFreezeMs: 500, maxConcealment: 0.05)
        ),
        Condition(
            name: "reorder10",
            impairment: .bridge(["--reorder-percent", "10", "--reorder-ms", "30"]),
            thresholds: Thresholds(minDecodedShare: 0.95, maxFreezeMs: 500, maxConcealment: 0.05)
        ),
        Condition(
            name: "duplicate10",
            impairment: .bridge(["--duplicate-percent", "10"]),
            thresholds: Thresholds(minDecodedShare: 0.95, maxFreezeMs: 500, maxConcealment: 0.02)
        ),
        // The test pattern sends about 300 kbit/s, under the limit: application-limited, the
        // estimate may reach 1.5 times the acknowledged rate + 10 kbit/s (GCC), and that rate
        // peaks with keyframes (520-609 kbit/s measured). Whether the senders stay under the
        // bottleneck is the tbf drop check.
        Condition(
            name: "rate500",
            impairment: .rateLimit(kbit: 500),
            thresholds: Thresholds(minDecodedShare: 0.85, maxFreezeMs: 1500, maxConcealment: 0.10, maxEstimateKbps: 750)
        ),
    ]

    /// Largest share of packets the tbf bottleneck may drop over the last seconds of the call.
    static let maxRecentRateLimitLoss = 0.05

    @Test(arguments: conditions)
    func callbotUnder(_ condition: Condition) async throws {
        let folder = try FaultPaths.workFolder(condition.name)
        try await CallSlots.shared.with {
            try await FaultNetwork.with(condition.impairment.layout) { network in
                try await Self.run(condition, network: network, folder: folder)
            }
        }
    }

    static func run(_ condition: Condition, network: FaultNetwork, folder: URL) async throws {
        var relay: ChildProcess?
        switch condition.impairment {
        case .none: break
        case let .loss(percent): try await network.addLoss(percent: percent)
        case let .rateLimit(kbit): try await network.addRateLimit(kbit: kbit)
        case let .bridge(flags): relay = try await network.startImpairment(flags, folder: folder)
        }
        let call = FaultCall(network: network, folder: folder)
        let isRateLimited = if case .rateLimit = condition.impairment { true } else { false }
        let (server, client, before) = try await call.run(server: .callbot, client: .callbot, seconds: callSeconds) {
            isRateLimited ? try await network.rateLimitCounters() : (sent: 0, dropped: 0)
        }
        var networkFigures = ""
        var recentLoss: Double?
        switch condition.impairment {
        case .none:
            networkFigures = "clean link"
        case let .loss(percent):
            let counters = try await network.lossCounters()
            let share = counters.seen > 0 ? Double(counters.dropped) / Double(counters.seen) : 0
            networkFigures =
                "nft udp_seen=\(counters.seen) udp_dropped=\(counters.dropped) (\(String(format: "%.1f", share * 100))%)"
            // The impairment itself did what it says (a few hundred packets at least each way).
            #expect(
                counters.seen > 500 && abs(share * 100 - Double(percent)) < 4,
                "\(condition.name): \(networkFigures)"
            )
        case .rateLimit:
            let after = try await network.rateLimitCounters()
            let sent = after.sent - before.sent, dropped = after.dropped - before.dropped
            let loss = sent + dropped > 0 ? Double(dropped) / Double(sent + dropped) : 0
            recentLoss = loss
            networkFigures =
                "tbf sent=\(after.sent) dropped=\(after.dropped); last 3 s sent=\(sent) dropped=\(dropped) (\(String(format: "%.1f", loss * 100))%)"
        case .bridge:
            let stats = relay?.lastLine(prefix: "STATS ") ?? ""
            networkFigures = "impair \(stats)"
            // Every UDP packet of the call crossed the bridge, which could send them all.
            var counts: [String: Int] = [:]
            for field in stats.split(separator: " ") {
                let parts = field.split(separator: "=")
                if parts.count == 2, let value = Int(parts[1]) { counts[String(parts[0])] = value }
            }
            #expect((counts["udp"] ?? 0) > 500 && counts["send_errors"] == 0, "\(condition.name): \(networkFigures)")
        }
        let directions = [
            MediaDirection(sender: client, receiver: server), MediaDirection(sender: server, receiver: client),
        ]
        print(
            "FIGURES \(condition.name) ours: " + directions.map(\.figures).joined(separator: " ;; ")
                + " ;; net: \(networkFigures)"
        )
        for direction in directions { direction.expect(condition.thresholds, condition: condition.name) }
        if let recentLoss {
            #expect(
                recentLoss < maxRecentRateLimitLoss,
                "\(condition.name): the 500 kbit/s bottleneck dropped \(String(format: "%.1f", recentLoss * 100))% over the last 3 s: the senders did not settle under the limit (\(networkFigures))"
            )
        }
    }
}
