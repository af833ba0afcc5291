import Foundation

/// What a child process left: its exit status and output.
public struct ToolOutput: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs `executable` to its end, off the cooperative pool, with `stdin` as its input.
///
/// Its output goes to temporary files read by path after it exits, never through pipes read
/// by descriptor: a descriptor number a test holds can be closed and reused by another part of
/// the process meanwhile (a non-blocking socket), and Foundation's pipe readers trap on the
/// `EAGAIN` that follows.
public func runToEnd(_ executable: URL, _ arguments: [String], stdin: String? = nil) async throws -> ToolOutput {
    try await offThePool {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swiftrtc-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let stdoutURL = folder.appendingPathComponent("out"), stderrURL = folder.appendingPathComponent("err"),
            stdinURL = folder.appendingPathComponent("in")
        try Data((stdin ?? "").utf8).write(to: stdinURL)
        for url in [stdoutURL, stderrURL] { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let input = try FileHandle(forReadingFrom: stdinURL)
        let output = try FileHandle(forWritingTo: stdoutURL), errors = try FileHandle(forWritingTo: stderrURL)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            for handle in [input, output, errors] { try? handle.close() }
            throw error
        }
        // The child has its own copies.
        for handle in [input, output, errors] { try? handle.close() }
        process.waitUntilExit()
        return ToolOutput(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
        )
    }
}
