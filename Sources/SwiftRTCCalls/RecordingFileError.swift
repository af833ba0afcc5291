import Foundation

/// Why a recording file could not be made: the path and the reason, in words.
public struct RecordingFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The folder or file concerned.
    public var path: String
    /// What went wrong.
    public var reason: String

    /// The error for `path`, because of `reason`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "recording \(path): \(reason)" }
}
