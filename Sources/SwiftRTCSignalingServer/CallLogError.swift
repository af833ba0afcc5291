import Foundation

/// A call-log database failure: which file or operation, and the database's reason.
public enum CallLogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The database file cannot be opened or migrated.
    case cannotOpen(path: String, String)
    /// A read or write failed.
    case failed(String)
    /// A call with this id is already in the log: a call id is used once, a record never replaced.
    case duplicateCall(String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): "cannot open the call log database \(path): \(reason)"
        case let .failed(reason): "call log: \(reason)"
        case let .duplicateCall(id): "call log: call \(id) is already in the log (a call id is used once)"
        }
    }
}
