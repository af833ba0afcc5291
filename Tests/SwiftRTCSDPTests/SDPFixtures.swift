import Foundation
import SwiftRTCSDP

/// The recorded SDPs the tests read: `../shared/fixtures/sdp/*.sdp` and `rtp/*.sdp` beside
/// the package, and this package's own `Fixtures/sdp/*.sdp`.
enum SDPFixtures {
    /// The package root, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let sharedFolders = ["sdp", "rtp"].map {
        packageRoot.appendingPathComponent("../shared/fixtures").appendingPathComponent($0).standardizedFileURL
    }
    static let ownFolder = packageRoot.appendingPathComponent("Fixtures/sdp")

    /// Every fixture file: shared ones first, then ours.
    static var all: [URL] {
        (sharedFolders + [ownFolder]).flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
                .filter { $0.pathExtension == "sdp" }
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
        }
    }

    /// The file's name, for test arguments.
    static var allNames: [String] { all.map(\.lastPathComponent) }

    static func url(_ name: String) -> URL {
        all.first { $0.lastPathComponent == name } ?? sharedFolders[0].appendingPathComponent(name)
    }

    static func text(_ name: String) throws -> String {
        try String(contentsOf: url(name), encoding: .utf8)
    }

    static func parse(_ name: String) throws -> SessionDescription {
        try SessionDescription(parsing: text(name))
    }
}
