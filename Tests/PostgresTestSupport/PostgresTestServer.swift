import Foundation
import SocketTestSupport
import TestScheduling

/// A real PostgreSQL 15 (Debian's `postgresql`) for the tests: `initdb` into a temporary folder
/// (as the unprivileged user `postgres` when the tests run as root: initdb refuses root), the
/// server listening on a free loopback port, started once per test process and stopped when the
/// process ends (a watchdog shell stops it and removes the folder). Each test takes a database
/// of its own (``database()``).
public final class PostgresTestServer: Sendable {
    /// The server of this test process, started on first use.
    public static func shared() async throws -> PostgresTestServer {
        try await started.value
    }

    /// initdb, the server's start and the wait for it block for seconds: never on the
    /// cooperative pool, where they stalled every other test of the run (offThePool).
    private static let started = Task { try await offThePool { try PostgresTestServer() } }

    /// The loopback port it listens on.
    public let port: Int
    private let bin = "/usr/lib/postgresql/15/bin"

    private init() throws {
        guard FileManager.default.isExecutableFile(atPath: "\(bin)/postgres") else {
            throw PostgresTestError(
                "PostgreSQL 15 is not installed (\(bin)/postgres): run ./Scripts/bootstrap.sh --tests"
            )
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "swiftrtc-pg-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let asRoot = getuid() == 0
        if asRoot { try Self.run("/bin/chown", ["postgres:postgres", folder]) }
        try Self.run(
            asRoot ? "/usr/sbin/runuser" : "\(bin)/initdb",
            (asRoot ? ["-u", "postgres", "--", "\(bin)/initdb"] : []) + [
                "-D", "\(folder)/data", "-A", "trust", "-U", "postgres", "--no-sync",
            ]
        )
        port = try Self.freePort()
        // The server runs until this test process is gone, then stops and its folder goes.
        let server =
            "\(bin)/postgres -D \(folder)/data -k \(folder) -p \(port) -c listen_addresses=127.0.0.1 -c fsync=off "
            + "-c synchronous_commit=off -c full_page_writes=off -c max_connections=400 -c shared_buffers=64MB"
        let watchdog =
            "\(server) >\(folder)/log 2>&1 & pg=$!; while [ -d /proc/\(getpid()) ] && kill -0 $pg 2>/dev/null; do sleep 0.5; done; "
            + "kill -INT $pg 2>/dev/null; wait $pg; rm -rf \(folder)"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: asRoot ? "/usr/sbin/runuser" : "/bin/sh")
        process.arguments = (asRoot ? ["-u", "postgres", "--", "/bin/sh"] : []) + ["-c", watchdog]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while (try? Self.run("\(bin)/pg_isready", ["-h", "127.0.0.1", "-p", "\(port)", "-q"])) == nil {
            guard Date() < deadline else {
                let log = (try? String(contentsOfFile: "\(folder)/log", encoding: .utf8)) ?? ""
                throw PostgresTestError("PostgreSQL did not start within 30 s: \(log)")
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// A new, empty database; its `postgres://` URL. `createdb` runs off the cooperative pool:
    /// a few dozen tests ask for a database at the start of the run, and on the pool their
    /// waits once stalled every other test for a minute.
    public func database() async throws -> String {
        let name = "t_\(UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: ""))"
        let (bin, port) = (self.bin, self.port)
        _ = try await offThePool {
            try Self.run("\(bin)/createdb", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", name])
        }
        return "postgres://postgres@127.0.0.1:\(port)/\(name)"
    }

    @discardableResult
    private static func run(_ path: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw PostgresTestError("\(path) \(arguments.joined(separator: " ")): \(text)")
        }
        return text
    }

    private static func freePort() throws -> Int {
        guard let port = unusedLoopbackPort() else { throw PostgresTestError("no unused loopback port") }
        return Int(port)
    }
}

/// PostgreSQL could not be started or used for a test.
public struct PostgresTestError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
