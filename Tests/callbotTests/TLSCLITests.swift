import Foundation
import SwiftRTCSignaling
import TestScheduling
import Testing
import TransportTestSupport

/// `callbot whip-server` and `callbot serve` over TLS, and their clients verifying them, as
/// processes on loopback with a certificate `openssl` makes for the test; listening beyond
/// loopback without TLS; secrets from files and the environment (issue 17).
@Suite(.serialized, .realTime) struct TLSCLITests {
    typealias Background = CallCLITests.Background
    typealias Server = ServeCLITests.Server

    static let folder: URL = {
        (try? ScratchFolder.make("callbot-tls")) ?? FileManager.default.temporaryDirectory
    }()

    /// `callbot ARGUMENTS` with `environment` added to the test's (through env(1)).
    static func run(_ arguments: [String], environment: [String: String]) async throws -> Callbot.Result {
        let output = try await runToEnd(
            URL(fileURLWithPath: "/usr/bin/env"),
            environment.map { "\($0.key)=\($0.value)" } + [Callbot.executable.path] + arguments
        )
        return Callbot.Result(status: output.status, stdout: output.stdout, stderr: output.stderr)
    }

    static func readyURL(_ bot: Background) async throws -> URL {
        #expect(await bot.wait(for: "READY "), "\(bot.errors)")
        let line = try #require(bot.output.split(separator: "\n").first { $0.hasPrefix("READY ") })
        return try #require(URL(string: String(line.dropFirst("READY ".count))))
    }

    static func write(_ name: String, _ contents: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try contents.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func whipOverHTTPSConnectsWithTheCATrustedAndIsRefusedWithout() async throws {
        let certificate = try await TestCertificate.make(in: Self.folder, name: "whip-\(UUID().uuidString.prefix(6))")
        let report = Self.folder.appendingPathComponent("whip-server-\(UUID().uuidString.prefix(6)).json")
        let server = try Background([
            "whip-server", "--port", "0", "--tls-cert", certificate.certificate.path,
            "--tls-key", certificate.key.path, "--duration", "120", "--no-video",
            "--stats-interval", "30", "--report", report.path,
        ])
        let url = try await Self.readyURL(server)
        #expect(url.scheme == "https")
        #expect(url.host == "127.0.0.1" && url.path == "/whip")
        #expect(
            server.errors.contains(
                "WHIP endpoint https://127.0.0.1:0/whip (TLS certificate \(certificate.certificate.path), key"
            ),
            "\(server.errors)"
        )

        // Without the CA: a clear error, in the log and the report, and no session.
        let refusedReport = Self.folder.appendingPathComponent("whip-refused-\(UUID().uuidString.prefix(6)).json")
        let refused = try await Callbot.run([
            "whip", url.absoluteString, "--duration", "2", "--no-video", "--stats-interval", "30",
            "--report", refusedReport.path,
        ])
        #expect(refused.status == 69, "no endpoint whose certificate verifies was reached")
        #expect(
            refused.stderr.contains(
                "error: WHIP POST \(url.absoluteString): TLS: the server's certificate could not be verified (CERTIFICATE_VERIFY_FAILED"
            ),
            "\(refused.stderr)"
        )
        #expect(refused.stderr.contains("give its certificate with --ca-cert FILE"), "\(refused.stderr)")
        let refusedJSON = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: refusedReport)) as? [String: Any]
        )
        #expect(refusedJSON["connected"] as? Bool == false)
        #expect(
            (refusedJSON["errors"] as? [String])?.contains { $0.contains("CERTIFICATE_VERIFY_FAILED") } == true,
            "\(refusedJSON)"
        )

        // With it: the call connects.
        let call = try await Callbot.run([
            "whip", url.absoluteString, "--ca-cert", certificate.certificate.path,
            "--duration", "2", "--no-video", "--stats-interval", "30",
        ])
        #expect(call.status == 0, "\(call.stderr)")
        #expect(call.stderr.contains("WHIP session https://127.0.0.1:\(url.port!)/whip/"), "\(call.stderr)")

        kill(server.process.processIdentifier, SIGTERM)
        #expect(await server.exit() == 0, "\(server.errors)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        #expect(json["sessions"] as? Int == 1)
        #expect(json["connected"] as? Bool == true)
    }

    @Test func serveOverWSSCarriesACallBetweenCallAndAnswer() async throws {
        let certificate = try await TestCertificate.make(in: Self.folder, name: "serve-\(UUID().uuidString.prefix(6))")
        let aliceToken = "alice-tls-\(UUID().uuidString)", bobToken = "bob-tls-\(UUID().uuidString)"
        let tokens = try Self.write(
            "tls-tokens-\(UUID().uuidString.prefix(6)).txt",
            "alice:\(aliceToken)\nbob:\(bobToken)\n"
        )
        let bobTokenFile = try Self.write("bob-token-\(UUID().uuidString.prefix(6)).txt", bobToken + "\n")
        let aliceTokenFile = try Self.write("alice-token-\(UUID().uuidString.prefix(6)).txt", aliceToken + "\n")
        let server = try Server([
            "--port", "0", "--tokens", tokens, "--tls-cert", certificate.certificate.path,
            "--tls-key", certificate.key.path,
        ])
        defer { Task { _ = try? await server.terminate() } }
        let url = try await server.ready()
        #expect(url.scheme == "wss")
        #expect(url.host == "127.0.0.1" && url.path == "/signaling")

        // The library client, by address and by name, trusting the CA; refused without it.
        let trust = try TLSTrust(caCertificateFile: certificate.certificate.path)
        for target in [url, URL(string: "wss://localhost:\(url.port!)/signaling")!] {
            let channel = try await WebSocketSignalingChannel.connect(to: target, token: aliceToken, trust: trust)
            #expect(channel.userID == "alice")
            await channel.close()
        }
        await #expect {
            _ = try await WebSocketSignalingChannel.connect(to: url, token: aliceToken)
        } throws: { error in
            "\(error)".contains("TLS: the server's certificate could not be verified (CERTIFICATE_VERIFY_FAILED")
        }
        let untrusting = try await Callbot.run([
            "call", "bob", "--server", url.absoluteString, "--token-file", aliceTokenFile, "--audio-only",
        ])
        #expect(untrusting.status != 0)
        #expect(untrusting.stderr.contains("signaling \(url.absoluteString): "), "\(untrusting.stderr)")
        #expect(untrusting.stderr.contains("could not be verified"), "\(untrusting.stderr)")
        #expect(untrusting.stderr.contains("--ca-cert FILE"), "\(untrusting.stderr)")

        // Bob answers (token from a file), alice calls (token from the environment).
        let bob = try Background([
            "answer", "--server", url.absoluteString, "--token-file", bobTokenFile,
            "--ca-cert", certificate.certificate.path, "--stats-interval", "30",
        ])
        #expect(await bob.wait(for: "READY bob"), "\(bob.output)\n\(bob.errors)")
        let call = try await Self.run(
            [
                "call", "bob", "--server", url.absoluteString, "--ca-cert", certificate.certificate.path,
                "--audio-only", "--duration", "2", "--stats-interval", "30",
            ],
            environment: ["SWIFTRTC_SIGNALING_TOKEN": aliceToken]
        )
        #expect(call.status == 0, "\(call.stdout)\n\(call.stderr)")
        #expect(call.stdout.contains("call: logged in as alice"))
        #expect(call.stdout.contains("call: connected with bob"))
        #expect(
            call.stdout.split(separator: "\n").last?.hasPrefix("call: ended completed after ") == true,
            "\(call.stdout)"
        )
        #expect(await bob.exit() == 0, "\(bob.output)")
        #expect(bob.output.contains("answer: ended completed after "))
        #expect(try await server.terminate() == 0)
        for text in [call.stdout, call.stderr, bob.output, bob.errors, untrusting.stderr, server.output, server.errors]
        {
            #expect(!text.contains(aliceToken) && !text.contains(bobToken))
        }
    }

    @Test func listeningBeyondLoopbackNeedsTLSOrInsecure() async throws {
        let tokens = try Self.write("wide-tokens.txt", "alice:alice-token-0123456789\n")
        for command in [["serve", "--tokens", tokens], ["whip-server"]] {
            let refused = try await Callbot.run(command + ["--port", "0", "--host", "0.0.0.0"])
            #expect(refused.status != 0)
            #expect(
                refused.stderr.contains(
                    "--host 0.0.0.0 is not a loopback address: give --tls-cert FILE --tls-key FILE to serve TLS, or --insecure"
                ),
                "\(refused.stderr)"
            )
            #expect(refused.stdout.isEmpty)
        }
        // Loopback needs neither.
        let local = try Server(["--port", "0", "--tokens", tokens, "--host", "localhost"])
        #expect(try await local.ready().absoluteString.hasPrefix("ws://localhost:"))
        #expect(try await local.terminate() == 0)
        // --insecure says it is meant: plain ws:// on every interface.
        let server = try Server(["--port", "0", "--tokens", tokens, "--host", "0.0.0.0", "--insecure"])
        let url = try await server.ready()
        #expect(url.scheme == "ws" && url.host == "0.0.0.0")
        let channel = try await WebSocketSignalingChannel.connect(
            to: URL(string: "ws://127.0.0.1:\(url.port!)/signaling")!,
            token: "alice-token-0123456789"
        )
        #expect(channel.userID == "alice")
        await channel.close()
        #expect(try await server.terminate() == 0)
        // A WHIP endpoint beyond loopback also needs a token: anyone who reaches it could publish.
        let open = try await Callbot.run(["whip-server", "--port", "0", "--host", "0.0.0.0", "--insecure"])
        #expect(open.status != 0)
        #expect(
            open.stderr.contains("--host 0.0.0.0 is not a loopback address: give --token-file FILE"),
            "\(open.stderr)"
        )
        let whip = try Background([
            "whip-server", "--port", "0", "--host", "0.0.0.0", "--insecure", "--duration", "1",
            "--token", "whip-token-0123456789",
        ])
        let whipURL = try await Self.readyURL(whip)
        #expect(whipURL.scheme == "http" && whipURL.host == "0.0.0.0")
        _ = await whip.exit()
    }

    @Test func tlsOptionsRefuseBadInput() async throws {
        let certificate = try await TestCertificate.make(in: Self.folder, name: "bad-\(UUID().uuidString.prefix(6))")
        let other = try await TestCertificate.make(in: Self.folder, name: "other-\(UUID().uuidString.prefix(6))")
        let missing = Self.folder.appendingPathComponent("missing.pem").path
        let (cert, key) = (certificate.certificate.path, certificate.key.path)
        let cases: [([String], String)] = [
            (["whip-server", "--port", "0", "--tls-cert", cert], "--tls-cert needs --tls-key FILE"),
            (["serve", "--port", "0", "--tokens", missing, "--tls-key", key], "--tls-key needs --tls-cert FILE"),
            (
                ["whip-server", "--port", "0", "--tls-cert", cert, "--tls-key", key, "--insecure"],
                "--insecure is for listening without TLS"
            ),
            (
                ["whip-server", "--port", "0", "--tls-cert", missing, "--tls-key", key],
                "--tls-cert \(missing): cannot read it"
            ),
            (
                ["whip-server", "--port", "0", "--tls-cert", key, "--tls-key", key],
                "--tls-cert \(key): not a PEM certificate chain"
            ),
            (
                ["whip-server", "--port", "0", "--tls-cert", cert, "--tls-key", other.key.path],
                "--tls-key \(other.key.path): this key does not belong to the certificate of \(cert)"
            ),
            (["whip", "https://127.0.0.1:1/whip", "--ca-cert", missing], "--ca-cert \(missing): cannot read it"),
            (
                ["call", "bob", "--server", "wss://127.0.0.1:1/signaling", "--token", "t", "--ca-cert", key],
                "--ca-cert \(key): not a PEM CA certificate"
            ),
            (
                ["answer", "--server", "wss://127.0.0.1:1/signaling"],
                "give the login token: --token T, --token-file FILE or $SWIFTRTC_SIGNALING_TOKEN"
            ),
        ]
        for (arguments, message) in cases {
            let result = try await Self.run(arguments, environment: [:])
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("BEGIN PRIVATE KEY"), "\(arguments)")
        }
    }

    /// A coturn on loopback. Its port is free for UDP when picked but may be taken for TCP
    /// (coturn listens on both) on a busy machine: then another port is tried.
    static func startCoturn() throws -> Coturn {
        var attempt = 0
        while true {
            attempt += 1
            let turn = try Coturn()
            do {
                try turn.waitUntilReady()
                return turn
            } catch {
                turn.stop()
                if attempt == 3 { throw error }
            }
        }
    }

    /// The TURN credential from a file (the server) and from the environment (the client):
    /// a call relayed both ways through coturn connects, and the credential is in no output.
    @Test func iceCredentialFromAFileAndTheEnvironmentRelaysACall() async throws {
        let turn = try Self.startCoturn()
        defer { turn.stop() }
        let credentialFile = try Self.write("turn-credential-\(UUID().uuidString.prefix(6)).txt", turn.password + "\n")
        let iceFlags = ["--ice-server", turn.url(), "--ice-username", turn.username, "--relay-only"]
        let server = try Background(
            [
                "whip-server", "--port", "0", "--ice-credential-file", credentialFile, "--duration", "60",
                "--no-video", "--stats-interval", "30",
            ] + iceFlags
        )
        let url = try await Self.readyURL(server)
        let report = Self.folder.appendingPathComponent("relayed-\(UUID().uuidString.prefix(6)).json")
        let call = try await Self.run(
            [
                "whip", url.absoluteString, "--duration", "2", "--no-video", "--stats-interval", "30",
                "--report", report.path,
            ] + iceFlags,
            environment: ["SWIFTRTC_ICE_CREDENTIAL": turn.password]
        )
        #expect(call.status == 0, "\(call.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        #expect(json["local_candidate_type"] as? String == "relay", "\(json)")
        kill(server.process.processIdentifier, SIGTERM)
        _ = await server.exit()
        for text in [
            call.stdout, call.stderr, server.output, server.errors,
            String(decoding: try Data(contentsOf: report), as: UTF8.self),
        ] {
            #expect(!text.contains(turn.password))
        }

        // Without a credential anywhere, the error names the three ways.
        let none = try await Callbot.run(["whip", url.absoluteString] + iceFlags)
        #expect(none.status != 0)
        #expect(
            none.stderr.contains(
                "give --ice-username and --ice-credential, --ice-credential-file or $SWIFTRTC_ICE_CREDENTIAL"
            ),
            "\(none.stderr)"
        )
        let empty = try Self.write("empty-credential.txt", "\n")
        let emptyFile = try await Callbot.run(["whip", url.absoluteString, "--ice-credential-file", empty] + iceFlags)
        #expect(emptyFile.stderr.contains("--ice-credential-file \(empty): it is empty"), "\(emptyFile.stderr)")
    }
}
