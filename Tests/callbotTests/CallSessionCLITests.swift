import Foundation
import TestScheduling
import Testing
import TransportTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
        let relay = [
            "--ice-server", turn.url(), "--ice-username", turn.username, "--ice-credential", turn.password,
            "--relay-only",
        ]
        let bob = try Background(
            [
                "answer", "--server", url, "--token", Self.bob, "--stats-interval", "1", "--custom-item",
                "answered-by=bob",
            ] + relay
        )
        #expect(await bob.wait(for: "READY bob"), "\(bob.errors)")
        let call = try await Callbot.run(
            [
                "call", "bob", "--server", url, "--token", Self.alice, "--duration", "4", "--stats-interval", "1",
                "--max-audio-kbps", "10", "--custom-item", "topic=cli",
            ] + relay
        )
        #expect(call.status == 0, "\(call.stdout)\n\(call.stderr)")
        #expect(await bob.exit() == 0, "\(bob.output)")
        // Both selected pairs go through the relay.
        let callPairs = call.stdout.split(separator: "\n").filter { $0.hasPrefix("CN ") }
        let answerPairs = bob.output.split(separator: "\n").filter { $0.hasPrefix("CN ") }
        #expect(!callPairs.isEmpty && callPairs.allSatisfy { $0.contains("relay->relay") }, "\(callPairs)")
        #expect(!answerPairs.isEmpty && answerPairs.allSatisfy { $0.contains("relay->relay") }, "\(answerPairs)")
        // The items crossed: each side holds both. (Alice's may reach bob before his answer
        // follows the session's events, as they go out with the call: what he holds is what
        // counts, shown with his own change.)
        #expect(bob.output.contains("answer: custom items by bob: {answered-by=bob,topic=cli}"), "\(bob.output)")
        #expect(call.stdout.contains("call: custom items by bob: {answered-by=bob,topic=cli}"), "\(call.stdout)")
        // Alice's Opus sender under her 10 kbit/s cap (`AS <rate>Kbps | opus`), and bob's too.
        func audioRates(_ output: String) -> [Int] {
            output.split(separator: "\n").filter { $0.hasPrefix("AS ") }.compactMap {
                Int($0.dropFirst(3).prefix { $0.isNumber })
            }
        }
        let (capped, uncapped) = (audioRates(call.stdout), audioRates(bob.output))
        print(
            "call-session CLI: audio sent \(capped) kbit/s by alice, \(uncapped) by bob; pairs \(callPairs.last ?? "") / \(answerPairs.last ?? "")"
        )
        #expect(capped.count >= 2 && capped.dropFirst().allSatisfy { $0 <= 12 }, "\(capped)")
        #expect(uncapped.count >= 2 && uncapped.dropFirst().allSatisfy { $0 <= 12 }, "\(uncapped)")
    }

    @Test func aDisconnectTimeoutUnderTenSecondsIsRefused() async throws {
        let result = try await Callbot.run([
            "call", "bob", "--server", "ws://127.0.0.1:1/signaling", "--token", "t", "--disconnect-timeout", "5",
        ])
        #expect(
            result.status != 0 && result.stderr.contains("--disconnect-timeout must be 10 to 3600 seconds"),
            "\(result.stderr)"
        )
        let items = try await Callbot.run([
            "answer", "--server", "ws://127.0.0.1:1/signaling", "--token", "t", "--custom-item", "novalue",
        ])
        #expect(
            items.status != 0 && items.stderr.contains("--custom-item 'novalue': expected KEY=VALUE"),
            "\(items.stderr)"
        )
    }
}

extension CallSessionCLITests {
    static func threeUsers() async throws -> (ServeCLITests.Server, String) {
        let tokens = try ServeCLITests.write(
            "three-tokens-\(UUID().uuidString.prefix(8)).txt",
            "alice:alice-token-0123456789\nbob:bob-token-0123456789\ncarol:carol-token-0123456789\n"
        )
        let server = try ServeCLITests.Server(["--port", "0", "--tokens", tokens])
        return (server, try await server.ready().absoluteString)
    }

    /// A call coming in while `answer` is in one is rejected as busy (the caller's call ends
    /// `busy`, exit 1), and the call taken goes on to its end (exit 0).
    @Test func aSecondCallIsRejectedAsBusy() async throws {
        let (server, url) = try await Self.threeUsers()
        defer { Task { _ = try? await server.terminate() } }
        let bob = try Background([
            "answer", "--server", url, "--token", Self.bob, "--stats-interval", "10", "--no-video",
        ])
        #expect(await bob.wait(for: "READY bob"), "\(bob.errors)")
        let alice = try Background([
            "call", "bob", "--server", url, "--token", Self.alice, "--audio-only", "--duration", "5",
            "--stats-interval", "10",
        ])
        #expect(await alice.wait(for: "call: connected with bob"), "\(alice.output)")
        let carol = try await Callbot.run([
            "call", "bob", "--server", url, "--token", "carol-token-0123456789", "--audio-only", "--stats-interval",
            "10",
        ])
        #expect(
            carol.status == 1 && carol.stdout.contains("call: bob rejected (busy)")
                && carol.stdout.contains("call: ended busy"),
            "\(carol.stdout)\n\(carol.stderr)\nbob: \(bob.output)"
        )
        #expect(await alice.exit() == 0, "\(alice.output)")
        #expect(await bob.exit() == 0 && bob.output.contains("answer: rejected (busy)"), "\(bob.output)")
    }

    /// The caller vanishes mid-call (SIGKILL): the server reports her gone, the call ends
    /// `connection_lost`, and `answer` exits 1.
    @Test func aCallThatFailsMakesAnswerExitWithFailure() async throws {
        let (server, url) = try await CallCLITests.server()
        defer { Task { _ = try? await server.terminate() } }
        let bob = try Background([
            "answer", "--server", url, "--token", Self.bob, "--stats-interval", "30", "--no-video",
        ])
        #expect(await bob.wait(for: "READY bob"), "\(bob.errors)")
        let alice = try Background([
            "call", "bob", "--server", url, "--token", Self.alice, "--audio-only", "--stats-interval", "30",
        ])
        #expect(await alice.wait(for: "call: connected with bob"), "\(alice.output)")
        let killed = ContinuousClock.now
        kill(alice.process.processIdentifier, SIGKILL)
        let status = await bob.exit(timeout: .seconds(40))
        let after = ContinuousClock.now - killed
        let ended = bob.output.split(separator: "\n").first { $0.hasPrefix("answer: ended ") } ?? ""
        print("answer after the caller vanished: \(ended), exit \(status.map(String.init) ?? "none") after \(after)")
        #expect(status == 1, "\(bob.output)")
        #expect(ended.hasPrefix("answer: ended connection_lost"), "\(bob.output)")
    }
}

extension CallSessionCLITests {
    /// `--report FILE` on both sides: the bot report's fields for a call session, from what
    /// each side measured.
    @Test func bothSidesWriteTheBotReport() async throws {
        let (server, url) = try await CallCLITests.server()
        defer { Task { _ = try? await server.terminate() } }
        let folder = ServeCLITests.folder
        let calleeReport = folder.appendingPathComponent("callee-\(UUID().uuidString.prefix(6)).json")
        let callerReport = folder.appendingPathComponent("caller-\(UUID().uuidString.prefix(6)).json")
        let bob = try Background([
            "answer", "--server", url, "--token", Self.bob, "--stats-interval", "30", "--report", calleeReport.path,
        ])
        #expect(await bob.wait(for: "READY bob"), "\(bob.errors)")
        let call = try await Callbot.run([
            "call", "bob", "--server", url, "--token", Self.alice, "--duration", "3", "--stats-interval", "30",
            "--report", callerReport.path,
        ])
        #expect(call.status == 0, "\(call.stdout)\n\(call.stderr)")
        #expect(await bob.exit() == 0, "\(bob.output)")
        var ids: [String] = []
        for (file, role, other) in [(callerReport, "caller", "bob"), (calleeReport, "callee", "alice")] {
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any],
                "\(file.path)"
            )
            #expect(json["role"] as? String == role && json["peer"] as? String == "callbot")
            #expect(json["connected"] as? Bool == true && json["call_result"] as? String == "completed")
            #expect(json["call_users"] as? [String] == [other])
            #expect((json["dtls_connected_ms"] as? Int ?? 0) > 0 && (json["duration_ms"] as? Int ?? 0) > 2500)
            let audio = try #require(json["audio"] as? [String: Any]),
                video = try #require(json["video"] as? [String: Any])
            #expect(
                (audio["rtp_packets_received"] as? Int ?? 0) > 50 && (video["frames_decoded"] as? Int ?? 0) > 20,
                "\(json)"
            )
            #expect(json["srtp_cipher"] as? String == "SRTP_AES128_CM_HMAC_SHA1_80")
            ids.append(json["call_id"] as? String ?? "")
        }
        #expect(ids.count == 2 && ids[0] == ids[1] && !ids[0].isEmpty)
    }
}

extension CallSessionCLITests {
    /// `answer --record DIR --trim-silence`: the caller sends speech between 1.5 s of silence
    /// before and 4 s after; the recording of her holds the speech, not the silence.
    @Test func trimSilenceLeavesTheSilenceOut() async throws {
        let (server, url) = try await CallCLITests.server()
        defer { Task { _ = try? await server.terminate() } }
        let folder = ServeCLITests.folder.appendingPathComponent("trim-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let speech = folder.appendingPathComponent("speech.wav").path,
            padded = folder.appendingPathComponent("padded.wav").path
        #expect(
            try await ExampleBotsTests.tool(
                "/usr/bin/espeak-ng",
                ["-w", speech, "Hello, this is the call recording speaking."]
            ).status == 0
        )
        #expect(
            try await ExampleBotsTests.tool(
                "/usr/bin/ffmpeg",
                [
                    "-v", "error", "-y", "-i", speech, "-af", "adelay=1500,apad=pad_dur=4",
                    "-ar", "48000", padded,
                ]
            ).status == 0
        )
        let spoken = try await ExampleBotsTests.played(speech).seconds,
            sent = try await ExampleBotsTests.played(padded).seconds
        let bob = try Background([
            "answer", "--server", url, "--token", Self.bob, "--stats-interval", "30", "--no-video",
            "--record", folder.path, "--record-option", "remote_audio", "--trim-silence",
        ])
        #expect(await bob.wait(for: "READY bob"), "\(bob.errors)")
        let call = try await Callbot.run([
            "call", "bob", "--server", url, "--token", Self.alice, "--audio-only", "--audio", padded,
            "--duration", "\(Int(sent.rounded(.up)) + 1)", "--stats-interval", "30",
        ])
        #expect(call.status == 0, "\(call.stdout)\n\(call.stderr)")
        #expect(await bob.exit() == 0, "\(bob.output)")
        let recorded = try #require(
            bob.output.split(separator: "\n").first { $0.hasPrefix("answer: recorded ") }.map {
                String($0.dropFirst("answer: recorded ".count))
            }
        )
        let kept = try await ExampleBotsTests.played(recorded)
        print("trim-silence: sent \(sent) s with \(spoken) s of speech, recorded \(kept.seconds) s")
        #expect(kept.codecs == ["opus"] && kept.seconds > spoken - 0.5 && kept.seconds < spoken + 1.0)
    }
}

extension CallSessionCLITests {
    /// `--stats-json`: the live stats as JSON lines, `STATS bob {...}`, in the W3C getStats
    /// shape, with what the call moved.
    @Test func statsAsJSONLines() async throws {
        let (server, url) = try await CallCLITests.server()
        defer { Task { _ = try? await server.terminate() } }
        let bob = try Background([
            "answer", "--server", url, "--token", Self.bob, "--stats-interval", "30", "--no-video",
        ])
        #expect(await bob.wait(for: "READY bob"), "\(bob.errors)")
        let call = try await Callbot.run([
            "call", "bob", "--server", url, "--token", Self.alice, "--audio-only", "--duration", "3",
            "--stats-interval", "1", "--stats-json",
        ])
        #expect(call.status == 0, "\(call.stdout)\n\(call.stderr)")
        let lines = call.stdout.split(separator: "\n").filter { $0.hasPrefix("STATS bob {") }
        #expect(lines.count >= 2 && !call.stdout.contains("--- call stats"), "\(call.stdout)")
        let last = try #require(lines.last)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(last.dropFirst("STATS bob ".count).utf8)) as? [String: Any]
        )
        let stats = try #require(json["stats"] as? [String: [String: Any]])
        let outbound = stats.values.first {
            $0["type"] as? String == "outbound-rtp" && $0["kind"] as? String == "audio"
        }
        #expect((outbound?["packetsSent"] as? Int ?? 0) > 50, "\(stats.keys.sorted())")
        #expect(json["timestamp"] as? Double != nil)
    }
}

extension CallSessionCLITests {
    /// The value of the Prometheus sample `name` (with its labels, as written) in `text`.
    static func sample(_ text: String, _ name: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap {
            Double($0.split(separator: " ").last ?? "")
        }
    }

    /// `--metrics HOST:PORT`: while in a call, the bot serves its calls, packets and bytes (the
    /// bitrate's counter) for Prometheus; after the call the active gauge is back to 0.
    @Test func aBotServesItsMetricsForPrometheus() async throws {
        let (server, url) = try await CallCLITests.server()
        defer { Task { _ = try? await server.terminate() } }
        let bob = try Background([
            "answer", "--server", url, "--token", Self.bob, "--no-video", "--stats-interval", "30",
            "--metrics", "127.0.0.1:0", "--calls", "2",
        ])
        #expect(await bob.wait(for: "READY bob"), "\(bob.errors)")
        let metricsURL = try #require(
            bob.output.split(separator: "\n").first { $0.hasPrefix("METRICS ") }.flatMap {
                URL(string: String($0.dropFirst(8)))
            },
            "\(bob.output)"
        )
        let call = try Background([
            "call", "bob", "--server", url, "--token", Self.alice, "--audio-only", "--duration", "4",
        ])
        #expect(await bob.wait(for: "answer: connected with alice"), "\(bob.output)")
        try await Task.sleep(for: .seconds(2.5))
        let during = String(decoding: try await URLSession.shared.data(from: metricsURL).0, as: UTF8.self)
        #expect(Self.sample(during, "bot_calls_active") == 1, "\(during)")
        #expect(Self.sample(during, #"bot_packets_received_total{kind="audio"}"#) ?? 0 > 40, "\(during)")
        #expect(Self.sample(during, #"bot_packets_sent_total{kind="audio"}"#) ?? 0 > 40, "\(during)")
        #expect(Self.sample(during, #"bot_bytes_received_total{kind="audio"}"#) ?? 0 > 2000, "\(during)")
        #expect(await call.exit() == 0, "\(call.output)\n\(call.errors)")
        #expect(await bob.wait(for: "answer: ended completed"), "\(bob.output)")
        let after = String(decoding: try await URLSession.shared.data(from: metricsURL).0, as: UTF8.self)
        #expect(Self.sample(after, "bot_calls_active") == 0, "\(after)")
        #expect(Self.sample(after, #"bot_calls_total{result="connected"}"#) == 1, "\(after)")
        let received = Self.sample(after, #"bot_packets_received_total{kind="audio"}"#) ?? 0
        #expect(
            received >= Self.sample(during, #"bot_packets_received_total{kind="audio"}"#) ?? 0 && received > 120,
            "\(after)"
        )
    }
}
