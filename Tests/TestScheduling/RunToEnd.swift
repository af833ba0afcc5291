import Foundation

/// What a child process left: its exit status and output.
public struct ToolOutput: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs `executable` to its end with `stdin` as its input (a ``ChildProcess``: its output goes
/// to files read by path after it exits, never through pipes read by descriptor, and the wait
/// polls without blocking the cooperative pool). A cancelled caller ends the process.
public func runToEnd(_ executable: URL, _ arguments: [String], stdin: String? = nil) async throws -> ToolOutput {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swiftrtc-run-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let stdinURL = folder.appendingPathComponent("in")
    try Data((stdin ?? "").utf8).write(to: stdinURL)
    let child = try ChildProcess(
        name: "run",
        executable: executable.path,
        arguments: arguments,
        folder: folder,
        stdin: stdinURL
    )
    while child.isRunning {
        do { try await Task.sleep(for: .milliseconds(10)) } catch {
            await child.end(grace: .seconds(1))
            throw error
        }
    }
    return ToolOutput(status: child.process.terminationStatus, stdout: child.stdout, stderr: child.stderr)
}
