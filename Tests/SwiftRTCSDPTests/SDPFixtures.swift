import Foundation
import SwiftRTCSDP

/// The recorded SDPs the tests read: this package's `Fixtures/sdp/*.sdp` and the SDPs of the
/// recorded calls in `Fixtures/rtp/*.sdp`.
enum SDPFixtures {
    /// The package root, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Fixtures/sdp`: recorded offers and answers (and the scripts that record ours).
    static let ownFolder = packageRoot.appendingPathComponent("Fixtures/sdp")
    /// `Fixtures/rtp`: the offers and answers of the recorded calls beside their captures.
    static let callsFolder = packageRoot.appendingPathComponent("Fixtures/rtp")

    /// Every fixture file, folder by folder, sorted by name in each.
    static var all: [URL] {
        [ownFolder, callsFolder].flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
                .filter { $0.pathExtension == "sdp" }
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
        }
    }

    /// The file's name, for test arguments.
    static var allNames: [String] { all.map(\.lastPathComponent) }

    static func url(_ name: String) -> URL {
        all.first { $0.lastPathComponent == name } ?? ownFolder.appendingPathComponent(name)
    }

    static func text(_ name: String) throws -> String {
        try String(contentsOf: url(name), encoding: .utf8)
    }

    static func parse(_ name: String) throws -> SessionDescription {
        try SessionDescription(parsing: text(name))
    }
}
