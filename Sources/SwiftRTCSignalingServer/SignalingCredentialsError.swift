import Crypto
import Foundation

/// A credentials file or entry that cannot be used; says which file, line and why.
public enum SignalingCredentialsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file cannot be read (missing, not UTF-8...).
    case unreadable(file: String, String)
    /// The file has no `USER:SECRET` line.
    case noEntries(file: String)
    /// One entry is wrong: where (when it comes from a file) and why.
    case invalidEntry(file: String?, line: Int?, String)

    public var description: String {
        switch self {
        case let .unreadable(file, reason): "cannot read \(file): \(reason)"
        case let .noEntries(file): "\(file): no USER:SECRET lines"
        case let .invalidEntry(file, line, reason):
            switch (file, line) {
            case let (file?, line?): "\(file):\(line): \(reason)"
            case let (file?, nil): "\(file): \(reason)"
            default: reason
            }
        }
    }
}
