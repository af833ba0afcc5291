import Foundation
import SocketTestSupport
import TestScheduling
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Where things are: the package root (from this file's path), the Interop scripts, and the
/// built `callbot` beside the test bundle.
enum Interop {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let scripts = packageRoot.appendingPathComponent("Interop")

    static var callbot: URL {
        var url = Bundle.main.bundleURL
        while url.pathComponents.count > 1,
            !FileManager.default.fileExists(atPath: url.appendingPathComponent("callbot").path)
        {
            url.deleteLastPathComponent()
        }
        return url.appendingPathComponent("callbot")
    }

    /// A fresh folder for one test's logs, reports and recordings:
    /// `$TMPDIR/swiftrtc-interop-<pid>/<name>`, emptied at the start of each run and kept after it
    /// for a look at what happened (failure messages name the files).
    static func workFolder(_ name: String) throws -> URL {
        // One folder per test process: two test runs at once (two checkouts) never share files.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("swiftrtc-interop-\(getpid())")
            .appendingPathComponent(name)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A port a child process can listen on (TCP and UDP): ``unusedLoopbackPort()``.
    static func freePort() throws -> Int {
        guard let port = unusedLoopbackPort() else { throw InteropFailure("no unused loopback port") }
        return Int(port)
    }

    /// The full path of `tool` on PATH, or nil.
    static func which(_ tool: String) -> String? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(folder)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// The interop peers' dependencies; a missing one fails the test with what to install.
    enum Dependency { case aiortc, chromium, firefox, coturn, ffmpeg, espeak }

    static func require(_ dependencies: Dependency...) async throws {
        guard FileManager.default.isExecutableFile(atPath: callbot.path) else {
            throw InteropFailure("the built callbot is missing at \(callbot.path); run swift build first")
        }
        guard ProjectPython.exists else {
            throw InteropFailure(ProjectPython.missing("the interpreter"))
        }
        for dependency in dependencies {
            switch dependency {
            case .aiortc:
                let probe = try await ChildProcess.run(
                    ProjectPython.path,
                    ["-c", "import aiortc"],
                    timeout: .seconds(30)
                )
                guard probe.status == 0 else { throw InteropFailure(ProjectPython.missing("aiortc")) }
            case .chromium:
                guard which("chromium") != nil || which("chromium-browser") != nil else {
                    throw InteropFailure("chromium is missing; install it with: apt-get install -y chromium")
                }
                guard which("chromedriver") != nil else {
                    throw InteropFailure("chromedriver is missing; install it with: apt-get install -y chromium-driver")
                }
            case .firefox:
                guard which("firefox-esr") != nil || which("firefox") != nil else {
                    throw InteropFailure("firefox-esr is missing; install it with: apt-get install -y firefox-esr")
                }
                let probe = try await ChildProcess.run(
                    ProjectPython.path,
                    ["-c", "import marionette_driver"],
                    timeout: .seconds(30)
                )
                guard probe.status == 0 else { throw InteropFailure(ProjectPython.missing("marionette_driver")) }
            case .ffmpeg:
                guard which("ffmpeg") != nil else {
                    throw InteropFailure("ffmpeg is missing; install it with: apt-get install -y ffmpeg")
                }
            case .espeak:
                guard which("espeak-ng") != nil else {
                    throw InteropFailure("espeak-ng is missing; install it with: apt-get install -y espeak-ng")
                }
            case .coturn:
                guard which("turnserver") != nil else {
                    throw InteropFailure("turnserver (coturn) is missing; install it with: apt-get install -y coturn")
                }
            }
        }
    }
}

/// A failed interop step, with what to look at.
struct InteropFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A child process with its output in files, bounded waits, and a guaranteed end: `stop()`
/// (SIGTERM, then SIGKILL after a grace period) runs on every path, by pid only.
final class ChildProcess: @unchecked Sendable {
    let name: String
    let process = Process()
    let stdoutURL: URL
    let stderrURL: URL

    /// Starts `executable` in the background; its standard input is the file `stdin`, or empty.
    init(name: String, executable: String, arguments: [String], folder: URL, stdin: URL? = nil) throws {
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
        // The child has its own copies; ours would stay open as long as this object (hundreds
        // over a test run, and past 1024 descriptors Foundation stops noticing exits).
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

    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// The last lines of standard error, for failure messages.
    func stderrTail(_ lines: Int = 25) -> String {
        stderr.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// Waits for a stdout line starting with `prefix` and returns the rest of it.
    ///
    /// The whole package's tests share a two-thread cooperative pool with CPU-heavy tests, so
    /// this loop can be scheduled late: the output is checked once more after the deadline.
    func waitForLine(prefix: String, timeout: Duration) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        func line() -> String? {
            stdout.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }).map {
                String($0.dropFirst(prefix.count))
            }
        }
        while ContinuousClock.now < deadline {
            if let found = line() { return found }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        if let found = line() { return found }
        throw InteropFailure(
            "\(name) printed no '\(prefix)' line within \(timeout) (running: \(process.isRunning)); stderr:\n\(stderrTail())"
        )
    }

    /// Waits for the process to exit by itself; past `timeout` it is stopped and this throws.
    @discardableResult
    func wait(timeout: Duration) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        if process.isRunning {
            stop()
            throw InteropFailure("\(name) did not exit within \(timeout); stderr:\n\(stderrTail())")
        }
        return process.terminationStatus
    }

    /// SIGTERM (the peers end their calls and write their reports), then SIGKILL after `grace`.
    func terminate() { if process.isRunning { kill(process.processIdentifier, SIGTERM) } }

    /// SIGTERM now, then SIGKILL after `grace` if it is still there. Returns at once: the
    /// waiting happens on a thread of its own, never on the cooperative pool (this runs in
    /// `defer` blocks of async tests).
    func stop(grace: Duration = .seconds(5)) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        Thread.detachNewThread { [self] in stopAndWait(grace: grace) }
    }

    /// SIGTERM, SIGKILL after `grace`, and returns once the process is gone. For the end of a
    /// test: ``stop(grace:)`` in a `defer` finishes on a thread of its own, which the test
    /// process may not outlive when it was the last test (a coturn was left running so).
    func end(grace: Duration = .seconds(5)) async {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
    }

    /// SIGTERM, SIGKILL after `grace`, and waits until the process is gone. Blocks.
    private func stopAndWait(grace: Duration) {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let deadline = ContinuousClock.now + grace
        while process.isRunning, ContinuousClock.now < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Runs a short command to its end (bounded), off the cooperative pool, returning its
    /// status and output.
    static func run(
        _ executable: String,
        _ arguments: [String],
        timeout: Duration
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await offThePool {
            let folder = FileManager.default.temporaryDirectory
            let child = try ChildProcess(
                name: "cmd-\(UUID().uuidString.prefix(8))",
                executable: executable,
                arguments: arguments,
                folder: folder
            )
            defer {
                try? FileManager.default.removeItem(at: child.stdoutURL)
                try? FileManager.default.removeItem(at: child.stderrURL)
            }
            let deadline = ContinuousClock.now + timeout
            while child.process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
            child.stopAndWait(grace: .seconds(1))
            return (child.process.terminationStatus, child.stdout, child.stderr)
        }
    }
}

/// A coturn on 127.0.0.1 with long-term credentials user:pass (realm swiftrtc), as
/// Interop/selfcheck.sh starts it.
final class TurnServer: @unchecked Sendable {
    let port: Int
    let child: ChildProcess
    let username = "user", credential = "pass"

    init(folder: URL) async throws {
        port = try Interop.freePort()
        child = try ChildProcess(
            name: "turnserver",
            executable: "turnserver",
            arguments: [
                "--allow-loopback-peers", "--no-cli", "-n", "-v",
                "--listening-ip", "127.0.0.1", "--relay-ip", "127.0.0.1", "--listening-port", "\(port)",
                "--no-tls", "--no-dtls", "--no-tcp-relay", "-a", "-u", "user:pass", "-r", "swiftrtc",
                "--userdb", folder.appendingPathComponent("turndb").path,
                "--pidfile", folder.appendingPathComponent("turnserver.pid").path,
                "--log-file", "stdout", "--simple-log",
            ],
            folder: folder
        )
        let deadline = ContinuousClock.now + .seconds(10)
        while !child.stdout.contains("Relay ports initialization done") {
            guard child.process.isRunning, ContinuousClock.now < deadline else {
                throw InteropFailure(
                    "turnserver did not start; its output:\n\(child.stdout.suffix(2000))\n\(child.stderrTail())"
                )
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The ICE flags for a relay-only side.
    var relayOnlyFlags: [String] {
        [
            "--ice-server", "turn:127.0.0.1:\(port)", "--ice-username", username, "--ice-credential", credential,
            "--relay-only",
        ]
    }

    /// Bytes coturn relayed to and from peers (it logs them when an allocation is released).
    var relayedBytes: Int {
        var total = 0
        for line in child.stdout.split(separator: "\n") where line.contains("peer usage:") {
            for key in ["rb=", "sb="] {
                guard let range = line.range(of: key) else { continue }
                total += Int(line[range.upperBound...].prefix(while: \.isNumber)) ?? 0
            }
        }
        return total
    }
}

/// The bot report fields the interop tests read (DESIGN.md, "Interop contract").
struct PeerReport: Decodable {
    struct Kind: Decodable {
        var rtp_packets_sent: Int?
        var rtp_packets_received: Int?
        var frames_decoded: Int?
        var width: Int?
        var height: Int?
        var rms: Double?
    }
    var peer: String?
    var role: String?
    var connected: Bool
    var ice_connected_ms: Double?
    var dtls_connected_ms: Double?
    var audio: Kind
    var video: Kind
    var errors: [String]
    var local_candidate_type: String?
    /// What DTLS negotiated, by IANA name (null where the peer cannot say: aiortc).
    var srtp_cipher: String?
    var dtls_cipher: String?

    static func load(_ url: URL) throws -> PeerReport {
        guard let data = try? Data(contentsOf: url) else { throw InteropFailure("no report at \(url.path)") }
        return try JSONDecoder().decode(PeerReport.self, from: data)
    }

    /// One line of figures for the test log.
    var summary: String {
        func n(_ v: Int?) -> String { v.map(String.init) ?? "null" }
        return
            "\(peer ?? "?") \(role ?? "?"): connected=\(connected) ice=\(ice_connected_ms.map { "\(Int($0))" } ?? "null")ms "
            + "dtls=\(dtls_connected_ms.map { "\(Int($0))" } ?? "null")ms pair=\(local_candidate_type ?? "?") | audio sent=\(n(audio.rtp_packets_sent)) "
            + "recv=\(n(audio.rtp_packets_received)) decoded=\(n(audio.frames_decoded)) rms=\(audio.rms.map { String(format: "%.4f", $0) } ?? "null") | "
            + "video sent=\(n(video.rtp_packets_sent)) recv=\(n(video.rtp_packets_received)) decoded=\(n(video.frames_decoded)) \(n(video.width))x\(n(video.height))"
    }
}
