import Foundation
import Glibc
import Synchronization
import TestScheduling

/// Runs the `openssl` command-line tool, the independent TLS stack the interop tests use.
enum OpenSSL {
    static let path = "/usr/bin/openssl"

    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs `openssl arguments` to completion, off the cooperative pool, and returns its
    /// standard output.
    static func run(_ arguments: [String]) async throws -> String {
        try await runToEnd(URL(fileURLWithPath: path), arguments).stdout
    }

    /// A temporary directory removed by `cleanup`.
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("swiftrtc-dtls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A self-signed RSA-2048 certificate and key made by OpenSSL, as PEM.
    static func rsaCertificate() async throws -> (certificate: String, key: String) {
        try await certificate(["-newkey", "rsa:2048"])
    }

    /// A self-signed ECDSA P-256 certificate and key made by OpenSSL, as PEM.
    static func ecdsaCertificate() async throws -> (certificate: String, key: String) {
        try await certificate(["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"])
    }

    private static func certificate(_ keyOptions: [String]) async throws -> (certificate: String, key: String) {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        _ = try await run(
            ["req", "-x509"] + keyOptions + [
                "-nodes", "-keyout", key, "-out", cert,
                "-days", "2", "-subj", "/CN=openssl",
            ]
        )
        return (try String(contentsOfFile: cert, encoding: .utf8), try String(contentsOfFile: key, encoding: .utf8))
    }
}

/// A long-running `openssl s_server` / `s_client` whose output is collected as it comes.
/// Spawned with posix_spawn and reaped with waitpid, so ending it never depends on a run loop.
final class OpenSSLProcess: Sendable {
    private final class Collected: Sendable { let text = Mutex("") }
    private let pid: pid_t
    private let inputFD: Int32
    /// Whether `inputFD` is closed: it is closed once. A second `close` of the number would
    /// close whatever descriptor the process has reused it for since (a NIO socket, once:
    /// NIO's selector then found a new socket on a number it still had registered, and
    /// the test run crashed).
    private let inputClosed = Atomic<Bool>(false)
    private let collected = Collected()

    init(_ arguments: [String]) throws {
        var input: [Int32] = [0, 0]
        var output: [Int32] = [0, 0]
        // Close-on-exec: a process another test spawns meanwhile must not inherit the write
        // end of this child's input, or the child never sees it end (it kept s_client from
        // sending close_notify, and `openSSLClientAgainstOurServer` waited for ever, when CI
        // ran it beside tests that spawn callbot and ffmpeg).
        // (pipe2 is not visible to Swift's Glibc: pipe, then the flag at once.)
        guard pipe(&input) == 0, pipe(&output) == 0 else { throw POSIXError(.EMFILE) }
        for fd in input + output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 gives the child its own copies, without close-on-exec.
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, output[1], 2)
        let argv = ([OpenSSL.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // The test runner's threads block some signals; give the child a clean mask.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, OpenSSL.path, &actions, &attributes, argv, environ)
        close(input[0])
        close(output[1])
        guard spawned == 0 else {
            close(input[1])
            close(output[0])
            throw POSIXError(.ENOENT)
        }
        self.pid = pid
        inputFD = input[1]
        let readFD = output[0]
        let collected = collected
        Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(readFD, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                collected.text.withLock { $0 += String(decoding: buffer.prefix(count), as: UTF8.self) }
            }
            close(readFD)
        }.start()
    }

    /// Everything printed so far.
    var output: String { collected.text.withLock { $0 } }

    /// Waits until the output contains `text` (polling), or the timeout passes.
    func waitFor(_ text: String, timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if output.contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return output.contains(text)
    }

    /// The keying material line OpenSSL prints with `-keymatexport` (upper-case hex).
    var keyingMaterial: [UInt8]? {
        guard let line = output.split(separator: "\n").first(where: { $0.contains("Keying material:") }),
            let hex = line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces)
        else { return nil }
        return bytes(hex: hex)
    }

    /// Closes OpenSSL's standard input: `s_client` then sends close_notify and exits.
    func closeInput() {
        if !inputClosed.exchange(true, ordering: .relaxed) { close(inputFD) }
    }

    /// Ends the process and reaps it.
    func terminate() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        closeInput()
    }
}
