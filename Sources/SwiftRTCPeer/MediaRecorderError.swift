import Foundation
import SwiftRTCCodecs
import SwiftRTCMedia
import SwiftRTCRTP
import SwiftRTCSDP
import Synchronization

/// Why a recording could not start or did not complete.
public enum MediaRecorderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file's extension names no format a recorder writes (`.webm`, `.ogg`/`.opus`, `.wav`).
    case unknownFormat(path: String)
    /// The tracks do not fit the format (video into Ogg or WAV, no track at all).
    case tracksDoNotFit(path: String, reason: String)
    /// The file exists (a recording never replaces a file) or cannot be created.
    case cannotCreate(path: String, errno: Int32)
    /// Writing failed; what was written before stays playable.
    case file(MediaFileError)
    /// Nothing to record arrived (no audio, or no video keyframe): the empty file was removed.
    case nothingRecorded(path: String, reason: String)

    public var description: String {
        switch self {
        case .unknownFormat(let path): "recording \(path): unknown format (use .webm, .ogg, .opus or .wav)"
        case let .tracksDoNotFit(path, reason): "recording \(path): \(reason)"
        case let .cannotCreate(path, errno):
            "recording \(path): cannot create the file (errno \(errno)\(errno == EEXIST ? ", it exists" : ""))"
        case .file(let error): "recording: \(error)"
        case let .nothingRecorded(path, reason): "recording \(path): \(reason), no file written"
        }
    }
}
