import Foundation
import TestScheduling
import Testing

/// `callbot log`: the user's call log from the server, newest first, with its filters and
/// pages, as lines and as JSON, after real calls (two completed, one rejected).
@Suite(.serialized, .realTime) struct LogCLITests {
    typealias Background = CallCLITests.Background
    static let alice = "alice-token-0123456789", bob = "bob-token-0123456789"

    @Test func listsFiltersAndPagesTheCallLog() async throws {
        let (server, url) = try await CallCLITests.server()
        defer { Task { _ = try? await server.terminate() } }
        var callIds: [String] = []
        for mode in ["accept", "reject", "accept"] {
            let bob = try Background([
                "answer", "--server", url, "--token", Self.bob, "--mode", mode, "--no-video", "--stats-interval", "30",
            ])
            #expect(await bob.wait(for: "READY bob"), "\(bob.errors)")
            let call = try await Callbot.run([
                "call", "bob", "--server", url, "--token", Self.alice, "--audio-only", "--duration", "1",
                "--stats-interval", "30",
            ])
            #expect(call.status == (mode == "accept" ? 0 : 1), "\(call.stdout)")
            _ = await bob.exit()
            if let line = call.stdout.split(separator: "\n").first(where: {
                $0.hasPrefix("call: calling bob in session ")
            }) {
                callIds.append(String(line.dropFirst("call: calling bob in session ".count)))
            }
        }
        try #require(callIds.count == 3)
        func log(_ extra: [String], token: String = Self.alice) async throws -> [String] {
            let result = try await Callbot.run(["log", "--server", url, "--token", token] + extra)
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init)
        }
        // Newest first, two per page.
        let first = try await log(["--limit", "2"])
        let second = try await log(["--limit", "2", "--page", "2"])
        #expect(first.count == 2 && second.count == 1, "\(first) \(second)")
        let listedIds: [String] = (first + second).map { (line: String) -> String in
            String(line.split(separator: " ").last ?? "")
        }
        #expect(listedIds == callIds.reversed())
        #expect(
            first[0].contains(" caller bob audio completed ") && first[1].contains(" caller bob audio declined "),
            "\(first)"
        )
        // Filters: by result, by role (bob sees the same calls as a callee).
        #expect(try await log(["--result", "declined"]).count == 1)
        #expect(try await log(["--role", "callee"]) == ["no calls"])
        #expect(try await log(["--role", "callee"], token: Self.bob).count == 3)
        // JSON: the records.
        let json = try await log(["--json", "--result", "completed"]).joined()
        let records = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(
            records.count == 2
                && records.allSatisfy { $0["caller"] as? String == "alice" && $0["result"] as? String == "completed" }
        )
        #expect(records.map { $0["callId"] as? String ?? "" } == [callIds[2], callIds[0]])
        // A page past what the protocol allows is refused before anything is sent.
        let deep = try await Callbot.run([
            "log", "--server", url, "--token", Self.alice, "--limit", "500", "--page", "1000",
        ])
        #expect(deep.status != 0 && deep.stderr.contains("--page must be 1 to 201 with --limit 500"), "\(deep.stderr)")
    }
}
