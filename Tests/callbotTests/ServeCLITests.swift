import Foundation
import SwiftRTCSignaling
import TestScheduling
import Testing

/// `callbot serve`: the signaling server as a process: READY line, a WebSocket login, the call
/// log in its SQLite file, clean exit on SIGTERM; and clear errors for bad command lines and files.
@Suite struct ServeCLITests {
    static let folder: URL = {
        (try? ScratchFolder.make("callbot-serve")) ?? FileManager.default.temporaryDirectory
    }()

    static func write(_ name: String, _ contents: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try contents.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// `callbot serve` running in the background, its output in files; waits poll with `Task.sleep`.
    final class Server: @unchecked Sendable {
        let process = Process()
        let stdout: URL
        let stderr: URL

        /// `openFileLimit`: the soft open-file limit it starts with (through `prlimit`), as a
        /// systemd service gets 1024.
        init(_ arguments: [String], environment: [String: String]? = nil, openFileLimit: Int? = nil) throws {
            stdout = folder.appendingPathComponent("serve-\(UUID().uuidString.prefix(8)).out")
            stderr = stdout.deletingPathExtension().appendingPathExtension("err")
            _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
            _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
            if let openFileLimit {
                process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
                process.arguments = ["--nofile=\(openFileLimit):", Callbot.executable.path, "serve"] + arguments
            } else {
                process.executableURL = Callbot.executable
                process.arguments = ["serve"] + arguments
            }
            process.standardOutput = try FileHandle(forWritingTo: stdout)
            process.standardError = try FileHandle(forWritingTo: stderr)
            process.standardInput = FileHandle.nullDevice
            if let environment {
                process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
            }
            try process.run()
        }

        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        var output: String { (try? String(contentsOf: stdout, encoding: .utf8)) ?? "" }
        var errors: String { (try? String(contentsOf: stderr, encoding: .utf8)) ?? "" }

        func ready(timeout: Duration = .seconds(60)) async throws -> URL {
            let deadline = ContinuousClock.now + timeout
            while true {
                if let line = output.split(separator: "\n").first(where: { $0.hasPrefix("READY ") }),
                    let url = URL(string: String(line.dropFirst("READY ".count)))
                {
                    return url
                }
                guard process.isRunning, ContinuousClock.now < deadline else {
                    throw CLIFailure("no READY line (running: \(process.isRunning)); stderr: \(errors)")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }

        func terminate(timeout: Duration = .seconds(20)) async throws -> Int32 {
            kill(process.processIdentifier, SIGTERM)
            let deadline = ContinuousClock.now + timeout
            while process.isRunning {
                guard ContinuousClock.now < deadline else {
                    kill(process.processIdentifier, SIGKILL)
                    throw CLIFailure("did not exit within \(timeout) of SIGTERM; stderr: \(errors)")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            return process.terminationStatus
        }
    }

    struct CLIFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test func serveAnswersALoginLogsCallsAndExitsOnSIGTERM() async throws {
        let tokens = try Self.write("tokens.txt", "alice:alice-token-0123456789\nbob:bob-token-0123456789\n")
        let database = Self.folder.appendingPathComponent("calls-\(UUID().uuidString.prefix(8)).sqlite").path
        let server = try Server(["--port", "0", "--tokens", tokens, "--database", database])
        let url = try await server.ready()
        #expect(url.scheme == "ws")
        #expect(url.path == "/signaling")
        let alice = try await WebSocketSignalingChannel.connect(to: url, token: "alice-token-0123456789")
        #expect(alice.userID == "alice")
        await #expect(throws: SignalingChannelError.self) {
            _ = try await WebSocketSignalingChannel.connect(to: url, token: "mallory-token-0123456789")
        }
        // A call canceled before anyone answered lands in the database file.
        let call = SignalingMessage(
            to: ["bob"],
            session: "cli-1",
            body: .call(
                .init(
                    sdp: "v=0\r\n",
                    conferenceType: .audio,
                    initiator: "alice",
                    opponents: ["bob"]
                )
            )
        )
        try await alice.send(call)
        try await alice.send(SignalingMessage(to: ["bob"], session: "cli-1", body: .hangUp(.init(result: .canceled))))
        try await alice.send(SignalingMessage(id: "q", body: .callLogQuery(.init(role: .caller))))
        var records: [CallRecord]?
        for await message in alice.messages {
            if case let .callLog(log) = message.body {
                records = log.records
                break
            }
        }
        #expect(records?.map(\.callId) == ["cli-1"])
        #expect(records?.first?.result == .canceled)
        #expect(try await server.terminate() == 0)
        #expect(server.errors.contains("signaling server stopped"), "\(server.errors)")
        #expect(FileManager.default.fileExists(atPath: database))
        await alice.close()
    }

    /// `--calls-per-minute 9` lets alice start 3 calls at once and refuses the fourth (429);
    /// `--call-log-max-calls 1` keeps her log to the newest call plus the one that ended
    /// since the last prune.
    @Test func callBudgetAndLogRetentionFlagsApply() async throws {
        let tokens = try Self.write("budget-tokens.txt", "alice:alice-token-0123456789\nbob:bob-token-0123456789\n")
        let server = try Server([
            "--port", "0", "--tokens", tokens, "--calls-per-minute", "9", "--call-log-max-calls", "1",
        ])
        let url = try await server.ready()
        let alice = try await WebSocketSignalingChannel.connect(to: url, token: "alice-token-0123456789")
        func call(_ session: String) -> SignalingMessage {
            SignalingMessage(
                id: session,
                to: ["bob"],
                session: session,
                body: .call(.init(sdp: "v=0\r\n", conferenceType: .audio, initiator: "alice", opponents: ["bob"]))
            )
        }
        for index in 1...3 {
            try await alice.send(call("budget-\(index)"))
            try await alice.send(
                SignalingMessage(to: ["bob"], session: "budget-\(index)", body: .hangUp(.init(result: .canceled)))
            )
        }
        try await alice.send(call("budget-4"))
        let refused = try await Self.next(on: alice) {
            if case let .error(error) = $0.body { return error.replyTo == "budget-4" }
            return false
        }
        guard case let .error(error) = refused.body else { return }
        #expect(error.code == .tooManyMessages)
        #expect(error.reason.contains("9 calls in the last minute"), "\(error.reason)")
        try await alice.send(SignalingMessage(id: "q", body: .callLogQuery(.init(role: .caller))))
        let log = try await Self.next(on: alice) {
            if case .callLog = $0.body { return true }
            return false
        }
        guard case let .callLog(records) = log.body else { return }
        #expect(records.records.map(\.callId) == ["budget-3", "budget-2"])
        await alice.close()
        #expect(try await server.terminate() == 0)
    }

    /// The next message on `channel` that `matches`, or a failure after `timeout`.
    static func next(
        on channel: WebSocketSignalingChannel,
        timeout: Duration = .seconds(30),
        where matches: @escaping @Sendable (SignalingMessage) -> Bool
    ) async throws -> SignalingMessage {
        try await withThrowingTaskGroup(of: SignalingMessage?.self) { group in
            group.addTask {
                for await message in channel.messages where matches(message) { return message }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let message = try await group.next() ?? nil else {
                throw CLIFailure("no such message within \(timeout)")
            }
            return message
        }
    }

    /// A server killed (SIGKILL) during an answered call loses nothing: the call's row was
    /// written at its start and at the answer (SQLite in WAL mode), and the next server on the
    /// same database logs it as `connection_lost` before it listens.
    @Test func aCallInProgressWhenTheServerIsKilledIsLoggedByTheNextServer() async throws {
        let tokens = try Self.write("kill-tokens.txt", "alice:alice-token-0123456789\nbob:bob-token-0123456789\n")
        let database = Self.folder.appendingPathComponent("killed-\(UUID().uuidString.prefix(8)).sqlite").path
        let server = try Server(["--port", "0", "--tokens", tokens, "--database", database])
        let url = try await server.ready()
        let alice = try await WebSocketSignalingChannel.connect(to: url, token: "alice-token-0123456789")
        let bob = try await WebSocketSignalingChannel.connect(to: url, token: "bob-token-0123456789")
        try await alice.send(
            SignalingMessage(
                to: ["bob"],
                session: "killed-1",
                body: .call(
                    .init(
                        sdp: "v=0\r\n",
                        conferenceType: .video,
                        initiator: "alice",
                        opponents: ["bob"]
                    )
                )
            )
        )
        _ = try await Self.next(on: bob) { $0.type == .call }
        try await bob.send(SignalingMessage(to: ["alice"], session: "killed-1", body: .accept(.init(sdp: "v=0\r\n"))))
        // The server wrote the answer before it routed the accept.
        _ = try await Self.next(on: alice) { $0.type == .accept }
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
        #expect(server.process.terminationReason == .uncaughtSignal)
        await alice.close()
        await bob.close()

        let next = try Server(["--port", "0", "--tokens", tokens, "--database", database])
        let nextURL = try await next.ready()
        #expect(
            next.errors.contains("an earlier run left 1 calls in progress: logged as connection_lost"),
            "\(next.errors)"
        )
        let again = try await WebSocketSignalingChannel.connect(to: nextURL, token: "alice-token-0123456789")
        try await again.send(SignalingMessage(id: "q", body: .callLogQuery(.init())))
        let reply = try await Self.next(on: again) { $0.type == .callLog }
        guard case let .callLog(log) = reply.body else { throw CLIFailure("expected callLog, got \(reply)") }
        #expect(log.records.map(\.callId) == ["killed-1"])
        let record = try #require(log.records.first)
        #expect(record.result == .connectionLost)
        #expect(record.callees == ["bob"])
        #expect(record.answered != nil)
        // The call's id stays used.
        try await again.send(
            SignalingMessage(
                id: "c",
                to: ["bob"],
                session: "killed-1",
                body: .call(
                    .init(
                        sdp: "v=0\r\n",
                        conferenceType: .video,
                        initiator: "alice",
                        opponents: ["bob"]
                    )
                )
            )
        )
        let refusal = try await Self.next(on: again) { $0.type == .error }
        guard case let .error(error) = refusal.body else { throw CLIFailure("expected error, got \(refusal)") }
        #expect(error.code == .conflict)
        await again.close()
        #expect(try await next.terminate() == 0)
    }

    @Test func hashPasswordWritesAUsersFileLineThatServeAccepts() async throws {
        let hashed = try await Callbot.run(["serve", "--hash-password", "erin"], stdin: "erin's password\n")
        #expect(hashed.status == 0, "\(hashed.stderr)")
        let line = hashed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(line.hasPrefix("erin:pbkdf2-sha256$"))
        let users = try Self.write("users.txt", line + "\n")
        let server = try Server(["--port", "0", "--users", users])
        let url = try await server.ready()
        let erin = try await WebSocketSignalingChannel.connect(to: url, token: "erin:erin's password")
        #expect(erin.userID == "erin")
        await erin.close()
        #expect(try await server.terminate() == 0)
    }

    @Test(arguments: [
        (["serve"], "Missing expected argument '--port <P>'"),
        (["serve", "--port", "0"], "give the users: --tokens FILE or --users FILE"),
        (["serve", "--port", "99999", "--tokens", "@/t"], "--port 99999 is not a TCP port"),
        (["serve", "--port", "0", "--tokens", "@/t", "--users", "@/u"], "cannot be combined"),
        (["serve", "--port", "0", "--tokens", "@/missing.txt"], "cannot read @/missing.txt"),
        (["serve", "--port", "0", "--tokens", "@/bad-tokens.txt"], "@/bad-tokens.txt:2: expected USER:SECRET"),
        (["serve", "--port", "0", "--users", "@/bad-users.txt"], "@/bad-users.txt:1: malformed password hash"),
        (
            ["serve", "--port", "0", "--tokens", "@/good-tokens.txt", "--database", "/nonexistent-folder/c.sqlite"],
            "the folder /nonexistent-folder does not exist"
        ),
        (
            ["serve", "--port", "0", "--tokens", "@/good-tokens.txt", "--database", "@/not-a-database.sqlite"],
            "cannot open the call log database"
        ),
        (["serve", "--hash-password", "no spaces allowed"], "is not a user id"),
        (
            ["serve", "--port", "0", "--tokens", "@/t", "--janus", "http://127.0.0.1:8088/janus"],
            "--janus 'http://127.0.0.1:8088/janus' is not a Janus WebSocket URL"
        ),
        (
            ["serve", "--port", "0", "--tokens", "@/t", "--calls-per-minute", "0"],
            "--calls-per-minute 0 must be at least 1"
        ),
        (["serve", "--port", "0", "--tokens", "@/t", "--call-log-days", "0"], "--call-log-days 0.0 must be between"),
    ])
    func badInputIsAClearError(arguments: [String], message: String) async throws {
        _ = try Self.write("bad-tokens.txt", "alice:alice-token-0123456789\nbob bob-token-0123456789\n")
        _ = try Self.write("bad-users.txt", "erin:hunter2\n")
        _ = try Self.write("good-tokens.txt", "alice:alice-token-0123456789\n")
        _ = try Self.write("not-a-database.sqlite", String(repeating: "not sqlite\n", count: 100))
        let resolved = arguments.map { $0.replacingOccurrences(of: "@/", with: Self.folder.path + "/") }
        let result = try await Callbot.run(resolved)
        #expect(result.status != 0)
        let expected = message.replacingOccurrences(of: "@/", with: Self.folder.path + "/")
        #expect(result.stderr.contains(expected), "\(result.stderr)")
    }
}
