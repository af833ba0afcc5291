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
