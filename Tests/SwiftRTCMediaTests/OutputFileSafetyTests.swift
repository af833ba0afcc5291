import Foundation
import SwiftRTCMedia
import Testing

/// Recordings are this user's alone (0600), and never written where someone else chose: a
/// symbolic link in the recording's place (say, to a file the attacker can read, or one the
/// server must not overwrite) is refused by every writer, and the link's target is untouched.
@Suite struct OutputFileSafetyTests {
    /// Each writer, opening `path`.
    static let writers: [(String, @Sendable (String) throws -> Void)] = [
        ("wav", { _ = try WAVWriter(path: $0, channels: 1) }),
        ("ogg", { _ = try OggOpusWriter(path: $0, head: OpusHead(channels: 1)) }),
        ("webm", { _ = try WebMRecorder(path: $0, audio: OpusHead(channels: 1), video: nil) }),
    ]

    @Test(arguments: 0..<writers.count) func aWriterCreatesItsFileForThisUserOnly(writer: Int) throws {
        let (ext, open) = Self.writers[writer]
        let path = try temporaryDirectory("output-mode-\(ext)") + "/\(ext)-mode.\(ext)"
        try open(path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(ext): \(attributes[.posixPermissions] ?? "?")")
    }

    @Test(arguments: 0..<writers.count) func aWriterRefusesASymbolicLinkInItsPlace(writer: Int) throws {
        let (ext, open) = Self.writers[writer]
        let directory = try temporaryDirectory("output-link-\(ext)")
        let target = directory + "/\(ext)-victim.txt"
        try "keep me\n".write(toFile: target, atomically: false, encoding: .utf8)
        let path = directory + "/\(ext)-link.\(ext)"
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        #expect(throws: MediaFileError.self, "\(ext)") { try open(path) }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me\n")
    }
}
