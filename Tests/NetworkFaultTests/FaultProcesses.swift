import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Where things are: the package root (from this file's path), the Interop scripts, and the
/// built `callbot` and `swiftrtc-impair` beside the test bundle.
enum FaultPaths {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let scripts = packageRoot.appendingPathComponent("Interop")

    /// A built executable of this package (the folder of the test bundle or one above it).
    static func built(_ name: String) -> URL {
        var url = Bundle.main.bundleURL
        while url.pathComponents.count > 1,
            !FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path)
        {
            url.deleteLastPathComponent()
        }
        return url.appendingPathComponent(name)
    }

    /// The built `callbot`, or the one `$SWIFTRTC_CALLBOT` names (a release build, for the
    /// scenarios a debug build is too slow for on a small machine).
    static var callbot: URL {
        ProcessInfo.processInfo.environment["SWIFTRTC_CALLBOT"].map(URL.init(fileURLWithPath:)) ?? built("callbot")
    }

    /// Whether ``callbot`` is optimized (`$SWIFTRTC_CALLBOT` names a build under `release/`).
    static var callbotIsRelease: Bool { callbot.pathComponents.contains("release") }
    static var impair: URL { built("swiftrtc-impair") }

    /// A fresh folder for one test's logs and reports, `$TMPDIR/swiftrtc-faults/<name>`,
    /// emptied at the start and kept after the run (failure messages name the files).
    static func workFolder(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("swiftrtc-faults")
            .appendingPathComponent(name)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The full path of `tool` on PATH (plus the sbin folders, where ip, nft, tc live), or nil.
    static func which(_ tool: String) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// A failed fault-test step, with what to look at or what is needed.
struct FaultFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A child process with its output in files and bounded, non-blocking waits: every wait polls
/// with `Task.sleep`, so the cooperative pool is never blocked. `stop()` (SIGTERM, then
/// SIGKILL) ends it by pid; an instance dropped while its process still runs SIGKILLs it.
///
/// The output files' descriptors are closed as soon as the process is seen to have exited:
/// Foundation watches child processes with `select()`, which breaks past descriptor 1023, and a
/// run of the fault tests starts a few hundred short commands.
final class FaultProcess: @unchecked Sendable {
    let name: String
    let process = Process()
    let stdoutURL: URL
    let stderrURL: URL
    private let outputs: Mutex<[FileHandle]>

    init(name: String, executable: String, arguments: [String], folder: URL) throws {
        self.name = name
        stdoutURL = folder.appendingPathComponent("\(name).out")
        stderrURL = folder.appendingPathComponent("\(name).err")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let handles = [try FileHandle(forWritingTo: stdoutURL), try FileHandle(forWritingTo: stderrURL)]
        outputs = Mutex(handles)
        process.standardOutput = handles[0]
        process.standardError = handles[1]
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            for handle in handles { try? handle.close() }
            throw error
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        closeOutputs()
    }

    /// Whether the process still runs; once it has exited, our copies of its output files close.
    var isRunning: Bool {
        if process.isRunning { return true }
        closeOutputs()
        return false
    }

    private func closeOutputs() {
        let handles = outputs.withLock { handles in
            defer { handles = [] }
            return handles
        }
        for handle in handles { try? handle.close() }
    }

    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// The last lines of standard error, for failure messages.
    func stderrTail(_ lines: Int = 20) -> String {
        stderr.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// Waits for a stdout line starting with `prefix` and returns the rest of it. The output is
    /// checked once more after the deadline (the shared pool may schedule this loop late).
    func waitForLine(prefix: String, timeout: Duration) async throws -> String {
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
        throw FaultFailure(
            "\(name) printed no '\(prefix)' line within \(timeout) (running: \(isRunning)); stderr (\(stderrURL.path)):\n\(stderrTail())"
        )
    }

    /// The last stdout line starting with `prefix` (without it), if any.
    func lastLine(prefix: String) -> String? {
        stdout.split(separator: "\n").last(where: { $0.hasPrefix(prefix) }).map { String($0.dropFirst(prefix.count)) }
    }

    /// Waits for the process to exit by itself; past `timeout` it is stopped and this throws.
    @discardableResult
    func wait(timeout: Duration) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        if isRunning {
            await stop()
            throw FaultFailure("\(name) did not exit within \(timeout); stderr (\(stderrURL.path)):\n\(stderrTail())")
        }
        return process.terminationStatus
    }

    /// SIGTERM (callbot and the peers end their calls and write their reports).
    func terminate() { if process.isRunning { kill(process.processIdentifier, SIGTERM) } }

    /// SIGTERM, then SIGKILL after `grace`; returns once the process is gone.
    func stop(grace: Duration = .seconds(5)) async {
        guard isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        guard isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        // Bounded too: a lost exit notification must not hang the test run.
        let killed = ContinuousClock.now + .seconds(5)
        while isRunning, ContinuousClock.now < killed { try? await Task.sleep(for: .milliseconds(20)) }
    }

    /// Runs a short command to its end (bounded), returning its status and output.
    static func run(
        _ executable: String,
        _ arguments: [String],
        timeout: Duration = .seconds(30)
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let folder = FileManager.default.temporaryDirectory
        let child = try FaultProcess(
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
        while child.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        if child.isRunning {
            await child.stop(grace: .seconds(1))
            throw FaultFailure("\(executable) \(arguments.joined(separator: " ")) did not finish within \(timeout)")
        }
        return (child.process.terminationStatus, child.stdout, child.stderr)
    }
}

/// At most `capacity` calls at a time across the target: each call runs two media endpoints
/// (VP8 encoding and decoding in real time) on a two-core machine, and a starved CPU would
/// show as network trouble (the `clean` control condition shows when it does anyway).
actor CallSlots {
    static let shared = CallSlots(capacity: 1)

    private let capacity: Int
    private var used = 0
    private var waiting: [(weight: Int, continuation: CheckedContinuation<Void, Never>)] = []

    init(capacity: Int) { self.capacity = capacity }

    /// Runs `body` holding `weight` slots (at most all of them).
    nonisolated func with<T: Sendable>(weight: Int = 1, _ body: () async throws -> T) async throws -> T {
        await acquire(weight)
        do {
            let result = try await body()
            await release(weight)
            return result
        } catch {
            await release(weight)
            throw error
        }
    }

    private func acquire(_ weight: Int) async {
        let weight = min(weight, capacity)
        if used + weight <= capacity, waiting.isEmpty {
            used += weight
            return
        }
        await withCheckedContinuation { waiting.append((weight, $0)) }
    }

    private func release(_ weight: Int) {
        used -= min(weight, capacity)
        while let next = waiting.first, used + next.weight <= capacity {
            waiting.removeFirst()
            used += next.weight
            next.continuation.resume()
        }
    }
}
