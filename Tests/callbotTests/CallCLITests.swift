import Foundation
import TestScheduling
import Testing

/// `callbot call` and `callbot answer` as processes, through `callbot serve`: a call answered
/// (with a recording on the answering side) and a call rejected.
@Suite(.serialized, .realTime) struct CallCLITests {
    typealias Server = ServeCLITests.Server

    /// A callbot process in the background with its output in files (waits poll with `Task.sleep`).
    final class Background: @unchecked Sendable {
        let process = Process()
        let stdout: URL
        let stderr: URL

        /// Runs callbot, or another built `executable` (an example bot), in `folder`, its output
        /// line-buffered (through `stdbuf -oL`, as for a terminal); its standard input is `stdin`
        /// (write lines into it) or empty.
        init(_ arguments: [String], executable: URL = Callbot.executable, folder: URL? = nil, stdin: Pipe? = nil) throws
        {
            stdout = ServeCLITests.folder.appendingPathComponent("bot-\(UUID().uuidString.prefix(8)).out")
            stderr = stdout.deletingPathExtension().appendingPathExtension("err")
            _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
            _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
            if executable == Callbot.executable {
                process.executableURL = executable
                process.arguments = arguments
            } else {
                process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
                process.arguments = ["-oL", executable.path] + arguments
            }
            if let folder { process.currentDirectoryURL = folder }
            process.standardOutput = try FileHandle(forWritingTo: stdout)
            process.standardError = try FileHandle(forWritingTo: stderr)
            process.standardInput = stdin ?? FileHandle.nullDevice
            try process.run()
        }

        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        var output: String { (try? String(contentsOf: stdout, encoding: .utf8)) ?? "" }
        var errors: String { (try? String(contentsOf: stderr, encoding: .utf8)) ?? "" }

        /// Waits until `text` is in the standard output (with `inErrors`, the standard error:
        /// its log lines).
        func wait(for text: String, inErrors: Bool = false, timeout: Duration = .seconds(60)) async -> Bool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if (inErrors ? errors : output).contains(text) { return true }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return (inErrors ? errors : output).contains(text)
        }

        func exit(timeout: Duration = .seconds(60)) async -> Int32? {
            let deadline = ContinuousClock.now + timeout
            while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
            return process.isRunning ? nil : process.terminationStatus
        }
    }

    static func server() async throws -> (Server, String) {
        let tokens = try ServeCLITests.write(
            "call-tokens-\(UUID().uuidString.prefix(8)).txt",
            "alice:alice-token-0123456789\nbob:bob-token-0123456789\n"
        )
        let server = try Server(["--port", "0", "--tokens", tokens])
        return (server, try await server.ready().absoluteString)
    }

    @Test func callAnsweredWithRecordingThenHungUpByTheCaller() async throws {
        let (server, url) = try await Self.server()
        defer { Task { _ = try? await server.terminate() } }
        let recordings = ServeCLITests.folder.appendingPathComponent("rec-\(UUID().uuidString.prefix(8)))")
        try FileManager.default.createDirectory(at: recordings, withIntermediateDirectories: true)
        let bob = try Background([
            "answer", "--server", url, "--token", "bob-token-0123456789", "--delay", "0.5",
            "--user-info", "mood=good", "--record", recordings.path, "--record-option", "remote_audio",
            "--stats-interval", "1",
        ])
        #expect(await bob.wait(for: "READY bob"), "\(bob.output)")
        let call = try await Callbot.run([
            "call", "bob", "--server", url, "--token", "alice-token-0123456789", "--audio-only",
            "--user-info", "topic=cli", "--duration", "2", "--stats-interval", "1",
        ])
        #expect(call.status == 0, "\(call.stdout)\n\(call.stderr)")
        let lines = call.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("call: logged in as alice"))
        #expect(lines.contains("call: bob accepted {mood=good}"))
        #expect(lines.contains("call: connected with bob"))
        #expect(lines.contains("--- call stats with bob ---"))
        #expect(lines.contains { $0.hasPrefix("CN ") && $0.contains("host->") })
        #expect(lines.contains { $0.hasPrefix("AR ") && $0.contains("opus") })
        #expect(lines.last?.hasPrefix("call: ended completed after ") == true)

        #expect(await bob.exit() == 0, "\(bob.output)")
        let answer = bob.output
        #expect(answer.contains("answer: call ") && answer.contains(" from alice (audio, with bob) {topic=cli}"))
        #expect(answer.contains("answer: accepted"))
        #expect(answer.contains("answer: alice hung up {reason=duration}"))
        #expect(answer.contains("answer: recording remote_audio into \(recordings.path)"))
        let recorded = try #require(answer.split(separator: "\n").first { $0.hasPrefix("answer: recorded ") })
        let path = String(recorded.dropFirst("answer: recorded ".count))
        #expect(path.hasSuffix("-alice.ogg"))
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        #expect(size > 2000, "\(path): \(size) bytes")
        #expect(answer.contains("answer: ended completed after "))
    }

    @Test func rejectedCallExitsWithFailure() async throws {
        let (server, url) = try await Self.server()
        defer { Task { _ = try? await server.terminate() } }
        let bob = try Background([
            "answer", "--server", url, "--token", "bob-token-0123456789", "--mode", "reject", "--user-info", "why=busy",
        ])
        #expect(await bob.wait(for: "READY bob"), "\(bob.output)")
        let call = try await Callbot.run([
            "call", "bob", "--server", url, "--token", "alice-token-0123456789", "--audio-only",
        ])
        #expect(call.status == 1, "\(call.stdout)\n\(call.stderr)")
        #expect(call.stdout.contains("call: bob rejected {why=busy}"))
        #expect(call.stdout.contains("call: ended declined after 0.0 s"))
        #expect(await bob.exit() == 0)
        #expect(bob.output.contains("answer: rejected"))
    }

    @Test func answerTriesEachServerAndSaysWhenItsSignalingReconnects() async throws {
        let (server, url) = try await Self.server()
        // The first --server has nothing listening: the login goes on to the second.
        let bob = try Background([
            "answer", "--server", "ws://127.0.0.1:1/signaling", "--server", url, "--token", "bob-token-0123456789",
        ])
        #expect(await bob.wait(for: "READY bob"), "\(bob.output)\n\(bob.errors)")
        #expect(try await server.terminate() == 0)
        #expect(await bob.wait(for: "signaling: reconnecting (attempt 1): ", timeout: .seconds(20)), "\(bob.output)")
        #expect(
            await bob.wait(
                for: "signaling: reconnecting (attempt 2): ws://127.0.0.1:1/signaling: ",
                timeout: .seconds(20)
            ),
            "\(bob.output)"
        )
        // Interrupted while reconnecting: it stops at once.
        kill(bob.process.processIdentifier, SIGTERM)
        #expect(await bob.exit(timeout: .seconds(20)) == 0, "\(bob.output)\n\(bob.errors)")
    }

    @Test func callAndAnswerRefuseBadArguments() async throws {
        let noServer = try await Callbot.run(["call", "bob", "--server", "http://x", "--token", "t"])
        #expect(noServer.status != 0 && noServer.stderr.contains("--server"))
        let tooMany = try await Callbot.run([
            "call", "a", "b", "c", "d", "--server", "ws://127.0.0.1:1/signaling", "--token", "t",
        ])
        #expect(tooMany.status != 0 && tooMany.stderr.contains("1 to 3 users"))
        let badMode = try await Callbot.run([
            "answer", "--server", "ws://127.0.0.1:1/signaling", "--token", "t", "--mode", "maybe",
        ])
        #expect(badMode.status != 0)
        let unreachable = try await Callbot.run([
            "call", "bob", "--server", "ws://127.0.0.1:1/signaling", "--token", "t",
        ])
        #expect(unreachable.status != 0 && unreachable.stderr.contains("signaling ws://127.0.0.1:1/signaling"))
    }
}
