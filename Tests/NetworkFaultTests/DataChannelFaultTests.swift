import Foundation
import TestScheduling
import Testing

/// Data channels across a lossy link (nftables drops 10% of the UDP each way, as
/// `NetworkFaultTests` does): `callbot whip --data-channel` in namespace `b` against
/// `callbot whip-server --echo-data` in `a`, data only. A reliable ordered channel gets every
/// message back, in order of sending, whatever was lost; a channel with no retransmission
/// (`--data-unordered --data-max-retransmits 0`) loses some and never waits for them.
@Suite(.serialized) struct DataChannelFaultTests {
    static let lossPercent = 10

    /// What the client's report row said, and how it exited.
    struct Row: Sendable {
        var exit: Int32
        var sent: Int?
        var received: Int?
        var bytesReceived: Int?
        var mismatches: Int?
        var text: String
    }

    /// The client's report row after a run against an echoing endpoint on the lossy link.
    static func run(_ name: String, _ flags: [String]) async throws -> Row {
        let folder = try FaultPaths.workFolder("data-\(name)")
        return try await CallSlots.shared.with {
            try await FaultNetwork.with(.direct) { network in
                try await network.addLoss(percent: lossPercent)
                let serverReport = folder.appendingPathComponent("server.json")
                let clientReport = folder.appendingPathComponent("client.json")
                let endpoint = try network.spawn(
                    in: network.a,
                    name: "whip-server-echo",
                    FaultPaths.callbot.path,
                    [
                        "whip-server", "--host", network.addressA, "--port", "\(FaultCall.port)", "--insecure",
                        "--token", FaultCall.token, "--echo-data", "--duration", "120", "--report", serverReport.path,
                    ],
                    folder: folder
                )
                let url = try await endpoint.waitForLine(prefix: "READY ", timeout: .seconds(90))
                let client = try network.spawn(
                    in: network.b,
                    name: "whip-data",
                    FaultPaths.callbot.path,
                    [
                        "whip", url, "--token", FaultCall.token, "--no-audio", "--no-video", "--report",
                        clientReport.path,
                    ]
                        + flags,
                    folder: folder
                )
                let status = try await client.wait(timeout: .seconds(90))
                endpoint.terminate()
                _ = try await endpoint.wait(timeout: .seconds(30))
                let counters = try await network.lossCounters()
                #expect(counters.seen > 100 && counters.dropped > 0, "the loss applied: \(counters)")
                let data = try Data(contentsOf: clientReport)
                let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                let row = try #require((json["data_channels"] as? [[String: Any]])?.first, "\(json)")
                print(
                    "FIGURES data-\(name) loss \(lossPercent)%: \(row) net seen=\(counters.seen) dropped=\(counters.dropped)"
                )
                #expect(json["connected"] as? Bool == true, "\(client.stderrTail())")
                return Row(
                    exit: status,
                    sent: row["messages_sent"] as? Int,
                    received: row["messages_received"] as? Int,
                    bytesReceived: row["bytes_received"] as? Int,
                    mismatches: row["echo_mismatches"] as? Int,
                    text: "\(row)"
                )
            }
        }
    }

    @Test func aReliableChannelGetsEveryMessageBackThroughLoss() async throws {
        let row = try await Self.run(
            "reliable",
            ["--data-channel", "reliable", "--data-messages", "300", "--data-size", "2000"]
        )
        #expect(row.exit == 0)
        #expect(row.received == 300 && row.mismatches == 0, "\(row.text)")
        #expect(row.bytesReceived == 600_000)
    }

    @Test func aChannelWithoutRetransmissionLosesSomeAndWaitsForNone() async throws {
        let row = try await Self.run(
            "partial",
            [
                "--data-channel", "lossy", "--data-messages", "500", "--data-size", "100", "--data-unordered",
                "--data-max-retransmits", "0", "--duration", "10",
            ]
        )
        let received = row.received ?? -1
        // Each echo crosses the link twice: about 81% come back; none is a wrong one. The
        // channel opens after DTLS and SCTP have shaken hands over the same lossy link: 61 ms
        // to 4.7 s in 33 runs here (each lost flight or INIT waits 0.2-1 s, then twice that),
        // and the rest of the 10 s is for the 500 messages and their echoes.
        #expect(received > 300 && received < 495, "\(row.text)")
        #expect(row.sent == 500 && row.mismatches == 0, "\(row.text)")
    }
}
