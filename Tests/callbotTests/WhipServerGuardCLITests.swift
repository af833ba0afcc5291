import Foundation
import TestScheduling
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `callbot whip-server` where strangers reach it (issue 17): its token from a file (the client's
/// from the environment), the session limit, an offer that never connects ended after the
/// connect timeout, hostile bodies answered with their status, recordings that replace no
/// file, and an honest call after all that; the report counts each refusal.
@Suite(.serialized, .realTime) struct WhipServerGuardCLITests {
    typealias Background = CallCLITests.Background

    static let fingerprint =
        "C8:06:49:8B:A2:2D:54:A9:BC:29:0F:D9:E7:E5:1E:C4:97:3B:B7:76:00:B6:F4:96:CE:45:32:03:09:18:52:68"

    /// A one-section offer whose only candidate is the discard port: it parses, gets an
    /// answer, and never connects.
    static func offer(_ media: String, _ codec: String) -> String {
        [
            "v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0", "m=\(media)", "c=IN IP4 127.0.0.1",
            "a=candidate:1 1 udp 2122194687 127.0.0.1 9 typ host", "a=ice-ufrag:abcd",
            "a=ice-pwd:abcdefghijklmnopqrstuvwx",
            "a=fingerprint:sha-256 \(fingerprint)", "a=setup:actpass", "a=mid:0", "a=sendrecv", "a=rtcp-mux", codec, "",
        ]
        .joined(separator: "\r\n")
    }
    static let unreachableOffer = offer("audio 9 UDP/TLS/RTP/SAVPF 111", "a=rtpmap:111 opus/48000/2")
    static let pcmuOnlyOffer = offer("audio 9 UDP/TLS/RTP/SAVPF 0", "a=rtpmap:0 PCMU/8000")
    /// An application section of a kind we do not take (BFCP, RFC 8856).
    static let bfcpOffer = offer("application 9 UDP/TLS/BFCP *", "a=floorctrl:c-s")

    /// A POST to `url`: its status, `Retry-After` and body.
    static func post(
        _ url: URL,
        token: String?,
        contentType: String = "application/sdp",
        body: Data
    ) async throws -> (status: Int, retryAfter: String?, body: String) {
        var request = URLRequest(url: url, timeoutInterval: 30)
        request.httpMethod = "POST"
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.httpBody = body
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, http.value(forHTTPHeaderField: "Retry-After"), String(decoding: data, as: UTF8.self))
    }

    @Test func strangersAreRefusedAndAnHonestCallStillConnects() async throws {
        let folder = try ScratchFolder.make("whip-server-guard")
        let token = "whip-guard-\(UUID().uuidString)"
        let tokenFile = folder.appendingPathComponent("token.txt")
        try Data("\(token)\n".utf8).write(to: tokenFile)
        let recordings = folder.appendingPathComponent("recordings")
        try FileManager.default.createDirectory(at: recordings, withIntermediateDirectories: true)
        // A file already in the folder: it stays as it is.
        try Data("keep".utf8).write(to: recordings.appendingPathComponent("keep.webm"))
        let report = folder.appendingPathComponent("server.json")

        let server = try Background([
            "whip-server", "--port", "0", "--token-file", tokenFile.path, "--max-sessions", "1",
            "--connect-timeout", "1", "--duration", "120", "--no-video", "--stats-interval", "30",
            "--record", recordings.path, "--report", report.path,
        ])
        #expect(await server.wait(for: "READY "), "\(server.errors)")
        let ready = try #require(server.output.split(separator: "\n").first { $0.hasPrefix("READY ") })
        let url = try #require(URL(string: String(ready.dropFirst("READY ".count))))

        // No token, a wrong one: 401.
        #expect(try await Self.post(url, token: nil, body: Data(Self.unreachableOffer.utf8)).status == 401)
        #expect(try await Self.post(url, token: token + "x", body: Data(Self.unreachableOffer.utf8)).status == 401)
        // An offer that never connects takes the one place; the next offer gets 503 until the
        // connect timeout has ended it.
        #expect(try await Self.post(url, token: token, body: Data(Self.unreachableOffer.utf8)).status == 201)
        let full = try await Self.post(url, token: token, body: Data(Self.pcmuOnlyOffer.utf8))
        #expect(full.status == 503)
        #expect(full.retryAfter == "5")
        // Probe with an offer that is refused once admitted (422 frees its place at once):
        // 503 while the silent session holds it, 422 once it has been ended.
        let freedAt = ContinuousClock.now + .seconds(20)
        var probe = full.status
        while probe == 503, ContinuousClock.now < freedAt {
            try await Task.sleep(for: .milliseconds(100))
            probe = try await Self.post(url, token: token, body: Data(Self.pcmuOnlyOffer.utf8)).status
        }
        #expect(probe == 422)
        #expect(server.errors.contains("ended: not connected within 1.0 seconds"), "\(server.errors)")

        // Hostile bodies: each its status and reason, and the server stays up.
        let hostile: [(String, Data, Int, String)] = [
            ("application/sdp", Data(repeating: UInt8(ascii: "a"), count: 200 * 1024), 413, "over the limit"),
            ("text/plain", Data(Self.unreachableOffer.utf8), 415, "application/sdp"),
            ("application/sdp", Data([0x00, 0xFF, 0x13, 0x37]), 400, "not UTF-8"),
            ("application/sdp", Data("v=0\r\nm=audio x\r\n".utf8), 400, "invalid session description"),
            ("application/sdp", Data(Self.bfcpOffer.utf8), 422, "no audio, video or data section"),
        ]
        for (type, body, status, reason) in hostile {
            let reply = try await Self.post(url, token: token, contentType: type, body: body)
            #expect(reply.status == status, "\(type) \(body.count) bytes: \(reply.body)")
            #expect(reply.body.contains(reason), "\(reply.body)")
        }

        // An honest call, its token from the environment: connects, and records to in-2.webm.
        let client = try await runToEnd(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "SWIFTRTC_WHIP_TOKEN=\(token)", Callbot.executable.path, "whip", url.absoluteString,
                "--duration", "2", "--no-video", "--stats-interval", "30",
            ]
        )
        #expect(client.status == 0, "\(client.stderr)")

        kill(server.process.processIdentifier, SIGTERM)
        #expect(await server.exit() == 0, "\(server.errors)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let counters = try #require(json["whip_endpoint"] as? [String: Int], "\(json)")
        #expect(counters["unauthorized"] == 2)
        #expect(counters["timed_out"] == 1)
        #expect((counters["rejected_session_limit"] ?? 0) >= 1)
        #expect(counters["sessions_created"] == 2)
        #expect(counters["ended_by_client"] == 1)
        #expect((counters["bad_requests"] ?? 0) >= hostile.count + 1)
        #expect(json["sessions"] as? Int == 2)
        #expect(json["connected"] as? Bool == true)

        #expect(try Data(contentsOf: recordings.appendingPathComponent("keep.webm")) == Data("keep".utf8))
        // One file for the one session that connected, named from the server's clock alone.
        let names = try FileManager.default.contentsOfDirectory(atPath: recordings.path).sorted()
        #expect(
            names.count == 2 && names[0] == "keep.webm" && names[1].hasPrefix("whip-") && names[1].hasSuffix(".webm"),
            "\(names)"
        )
        let recorded = recordings.appendingPathComponent(names.last ?? "")
        let size = (try? FileManager.default.attributesOfItem(atPath: recorded.path)[.size] as? Int) ?? 0
        #expect(size > 2000, "\(recorded.lastPathComponent): \(size) bytes; \(server.errors)")

        // The token is in no output of either side.
        for text in [
            server.output, server.errors, client.stdout, client.stderr,
            String(decoding: try Data(contentsOf: report), as: UTF8.self),
        ] {
            #expect(!text.contains(token))
        }
    }

    @Test func tokenOptionsRefuseBadInputWithoutQuotingTheToken() async throws {
        let folder = try ScratchFolder.make("whip-token-options")
        let empty = folder.appendingPathComponent("empty.txt")
        try Data("\n".utf8).write(to: empty)
        let cases: [([String], String)] = [
            (["whip-server", "--port", "0", "--token", "a", "--token-file", empty.path], "cannot be combined"),
            (["whip-server", "--port", "0", "--token-file", empty.path], "the token is empty"),
            (
                ["whip-server", "--port", "0", "--token-file", folder.appendingPathComponent("missing").path],
                "cannot read it"
            ),
            (["whip-server", "--port", "0", "--token", "secret with spaces"], "printable ASCII without spaces"),
            (["whip", "http://127.0.0.1:1/whip", "--token", "secret\u{7F}x"], "printable ASCII without spaces"),
            (["whip-server", "--port", "0", "--max-sessions", "0"], "--max-sessions must be at least 1"),
            (
                ["whip-server", "--port", "0", "--max-sessions-per-address", "0"],
                "--max-sessions-per-address must be at least 1"
            ),
            (
                ["whip-server", "--port", "0", "--connect-timeout", "0"],
                "--connect-timeout must be a number of seconds above 0"
            ),
        ]
        for (arguments, message) in cases {
            let result = try await Callbot.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("secret"), "\(arguments): \(result.stderr)")
        }
    }
}
