import Foundation

/// A folder that recordings are written into, with file names that cannot leave it and files
/// that never replace one already there.
///
/// Nothing a peer sends makes a path here: a name part that comes from elsewhere (a user id)
/// goes through ``safeName(_:)`` first, which keeps ASCII letters, digits, `-` and `_` only,
/// and ``createFile(base:extension:)`` checks that the file it makes lies directly in the
/// folder (resolved once, symbolic links included). A file is created with `O_CREAT | O_EXCL`,
/// so an existing name (a file, a folder, a symbolic link) is never opened: the next number is
/// taken instead (`NAME-2.webm`, `NAME-3.webm`...).
public struct RecordingFolder: Sendable, Hashable {
    /// The most characters ``safeName(_:)`` keeps.
    public static let maxNamePartLength = 64
    /// The most names tried for one base (`NAME`, `NAME-2` ... `NAME-10000`) before giving up.
    public static let maxNumberedNames = 10_000

    /// The folder: absolute, with symbolic links resolved.
    public let url: URL

    /// The folder at `url`, which must exist.
    public init(_ url: URL) throws(RecordingFileError) {
        guard let resolved = realpath(url.path, nil) else {
            throw RecordingFileError(path: url.path, reason: "no such folder (errno \(errno))")
        }
        defer { free(resolved) }
        let path = String(cString: resolved)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw RecordingFileError(path: url.path, reason: "not a folder")
        }
        self.url = URL(fileURLWithPath: path, isDirectory: true)
    }

    /// `part` as a piece of a file name: ASCII letters, digits, `-` and `_` kept, anything
    /// else (`/`, `.`, spaces, other scripts) turned into `_`, cut at ``maxNamePartLength``
    /// characters; `_` when nothing is left.
    public static func safeName(_ part: String) -> String {
        let kept = part.unicodeScalars.prefix(maxNamePartLength).map { scalar -> Character in
            let safe =
                scalar.isASCII
                && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                    || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_")
            return safe ? Character(scalar) : "_"
        }
        return kept.isEmpty ? "_" : String(kept)
    }

    /// Creates a new, empty file `<base>.<ext>` in the folder, or `<base>-2.<ext>`,
    /// `<base>-3.<ext>`... when that name is taken, and returns its URL (the writer then
    /// opens it again). `base` is a file name without a folder (no `/`, not starting with `.`);
    /// pass names from the network through ``safeName(_:)`` first.
    public func createFile(base: String, extension ext: String) throws(RecordingFileError) -> URL {
        for part in [base, ext] {
            guard !part.isEmpty, part.utf8.count <= 200, !part.hasPrefix("."), !part.contains("/"), !part.contains("\0")
            else {
                throw RecordingFileError(path: url.path, reason: "'\(part)' is not a file name")
            }
        }
        for number in 1...Self.maxNumberedNames {
            let name = number == 1 ? "\(base).\(ext)" : "\(base)-\(number).\(ext)"
            let file = url.appendingPathComponent(name, isDirectory: false)
            // Directly in the folder, whatever the name held.
            guard file.standardizedFileURL.deletingLastPathComponent().path == url.standardizedFileURL.path else {
                throw RecordingFileError(path: file.path, reason: "outside the recording folder \(url.path)")
            }
            let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if descriptor >= 0 {
                close(descriptor)
                return file
            }
            guard errno == EEXIST else {
                throw RecordingFileError(path: file.path, reason: "cannot create it (errno \(errno))")
            }
        }
        throw RecordingFileError(
            path: url.appendingPathComponent(base).path,
            reason: "\(Self.maxNumberedNames) files of that name exist"
        )
    }
}
