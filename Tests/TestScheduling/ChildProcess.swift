import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A process a test starts (a peer, a server, a tool), with its output in files and bounded
/// waits that never block the cooperative pool: every wait polls with `Task.sleep`. An
/// instance dropped while its process still runs SIGKILLs it.
///
/// Our copies of the output files' descriptors close as soon as the process has started (it
/// has its own): a test run starts hundreds of processes, and past descriptor 1023 Foundation,
/// which watches child processes with `select()`, stops noticing exits.
public final class ChildProcess: @unchecked Sendable {
    /// The name its output files and failure messages use.
    public let name: String
    /// The process itself (its pid, status).
    public let process = Process()
    /// Where its standard output goes: `<folder>/<name>.out`.
    public let stdoutURL: URL
    /// Where its standard error goes: `<folder>/<name>.err`.
    public let stderrURL: URL

    /// Starts `executable` (a path, or a name looked up on PATH) with `arguments`, its output in
    /// `folder`, its standard input the file `stdin` (empty without one).
    public init(name: String, executable: String, arguments: [String], folder: URL, stdin: URL? = nil) throws {
        self.name = name
        stdoutURL = folder.appendingPathComponent("\(name).out")
        stderrURL = folder.appendingPathComponent("\(name).err")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        if executable.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        let output = try FileHandle(forWritingTo: stdoutURL), errors = try FileHandle(forWritingTo: stderrURL)
        defer {
            try? output.close()
            try? errors.close()
        }
        process.standardOutput = output
        process.standardError = errors
        if let stdin {
            let input = try FileHandle(forReadingFrom: stdin)
            defer { try? input.close() }
            process.standardInput = input
            try process.run()
        } else {
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// Whether the process still runs.
    public var isRunning: Bool { process.isRunning }
    /// Its standard output so far.
    public var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    /// Its standard error so far.
    public var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// The last lines of standard error, for failure messages.
    public func stderrTail(_ lines: Int = 25) -> String {
        stderr.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// Waits for a stdout line starting with `prefix` and returns the rest of it. The output is
    /// checked once more after the deadline: the tests share a small cooperative pool with
    /// CPU-heavy tests, so this loop can be scheduled late.
    public func waitForLine(prefix: String, timeout: Duration) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        func line() -> String? {
            stdout.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }).map {
                String($0.dropFirst(prefix.count))
            }
        }
        while ContinuousClock.now < deadline {
            if let found = line() { return found }
            guard isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        if let found = line() { return found }
        throw ChildProcessFailure(
            "\(name) printed no '\(prefix)' line within \(timeout) (running: \(isRunning)); stderr (\(stderrURL.path)):\n\(stderrTail())"
        )
    }

    /// The last stdout line starting with `prefix` (without it), if any.
    public func lastLine(prefix: String) -> String? {
        stdout.split(separator: "\n").last(where: { $0.hasPrefix(prefix) }).map { String($0.dropFirst(prefix.count)) }
    }

    /// Waits for the process to exit by itself and returns its status; past `timeout` it is
    /// ended (``end(grace:)``) and this throws.
    @discardableResult
    public func wait(timeout: Duration) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        if isRunning {
            await end()
            throw ChildProcessFailure(
                "\(name) did not exit within \(timeout); stderr (\(stderrURL.path)):\n\(stderrTail())"
            )
        }
        return process.terminationStatus
    }

    /// SIGTERM: callbot and the peers end their calls and write their reports.
    public func terminate() { if isRunning { kill(process.processIdentifier, SIGTERM) } }

    /// SIGTERM now, then SIGKILL after `grace` if it is still there. Returns at once, for the
    /// `defer` of an async test: the waiting happens on a thread of its own, never on the
    /// cooperative pool. At the end of a test, ``end(grace:)`` (the test process may not
    /// outlive the thread when it was the last test).
    public func stop(grace: Duration = .seconds(5)) {
        guard isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        Thread.detachNewThread { [self] in
            let deadline = ContinuousClock.now + grace
            while process.isRunning, ContinuousClock.now < deadline { usleep(50_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    /// SIGTERM, then SIGKILL after `grace`; returns once the process is gone (bounded too: a
    /// lost exit notification must not hang the test run).
    public func end(grace: Duration = .seconds(5)) async {
        guard isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        guard isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        let killed = ContinuousClock.now + .seconds(5)
        while isRunning, ContinuousClock.now < killed { try? await Task.sleep(for: .milliseconds(20)) }
    }

    /// Runs a short command to its end, returning its status and output; one still running
    /// after `timeout` is ended and this throws.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        timeout: Duration = .seconds(30)
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try ChildProcess(
            name: "cmd-\(UUID().uuidString.prefix(8))",
            executable: executable,
            arguments: arguments,
            folder: FileManager.default.temporaryDirectory
        )
        defer {
            try? FileManager.default.removeItem(at: child.stdoutURL)
            try? FileManager.default.removeItem(at: child.stderrURL)
        }
        let deadline = ContinuousClock.now + timeout
        while child.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        if child.isRunning {
            await child.end(grace: .seconds(1))
            throw ChildProcessFailure(
                "\(executable) \(arguments.joined(separator: " ")) did not finish within \(timeout)"
            )
        }
        return (child.process.terminationStatus, child.stdout, child.stderr)
    }
}

/// A child process that did not do what a test waited for, with its output to look at.
public struct ChildProcessFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
