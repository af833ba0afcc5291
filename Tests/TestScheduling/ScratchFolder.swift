import Foundation
import Synchronization

/// Folders for the files tests write, all under one parent per test process
/// (`<tmp>/swiftrtc-tests-<pid>`): a run's files stay there for a look after a failure, and
/// the first folder made in a process removes the parents of test processes that have ended,
/// so runs do not pile up in the temporary directory.
public enum ScratchFolder {
    private static let parentPrefix = "swiftrtc-tests-"
    private static let swept = Mutex(false)

    /// A new empty folder named after `name` (letters and digits kept) and a random suffix.
    public static func make(_ name: String) throws -> URL {
        let temporary = FileManager.default.temporaryDirectory
        let parent = temporary.appendingPathComponent(parentPrefix + "\(getpid())")
        if swept.withLock({ done in
            defer { done = true }
            return !done
        }) {
            removeEndedRuns(in: temporary)
        }
        let safe = name.filter { $0.isLetter || $0.isNumber || $0 == "-" }
        let folder = parent.appendingPathComponent("\(safe)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Removes the parents left by processes that no longer run.
    private static func removeEndedRuns(in temporary: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names where name.hasPrefix(parentPrefix) {
            guard let pid = pid_t(name.dropFirst(parentPrefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) == 0 || errno == EPERM { continue }  // still running
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
    }
}
