import Foundation
import Synchronization

/// Runs the `openssl` command-line tool, the independent TLS stack the interop tests use.
enum OpenSSL {
    static let path = "/usr/bin/openssl"

    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs `openssl arguments` to completion and returns its standard output.
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// A temporary directory removed by `cleanup`.
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("swiftrtc-dtls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A self-signed RSA-2048 certificate and key made by OpenSSL, as PEM.
    static func rsaCertificate() throws -> (certificate: String, key: String) {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        _ = try run(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                     "-days", "2", "-subj", "/CN=openssl-rsa"])
        return (try String(contentsOfFile: cert, encoding: .utf8), try String(contentsOfFile: key, encoding: .utf8))
    }
}

/// A long-running `openssl s_server` / `s_client` whose output is collected as it comes.
final class OpenSSLProcess: Sendable {
    private let process: Process
    private let input: Pipe
    private final class Collected: Sendable { let text = Mutex("") }
    private let collected = Collected()

    init(_ arguments: [String]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: OpenSSL.path)
        process.arguments = arguments
        let output = Pipe()
        input = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = input
        output.fileHandleForReading.readabilityHandler = { [collected] handle in
            let data = handle.availableData
            guard !data.isEmpty else { return }
            collected.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
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

    func terminate() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
