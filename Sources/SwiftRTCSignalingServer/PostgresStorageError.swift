import Foundation
import Logging
import PostgresNIO
import SwiftRTCCore

/// Why the PostgreSQL storage cannot be used.
public enum PostgresStorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL cannot be used: why.
    case invalidURL(String)
    /// The database refused or failed an operation: which, and its reason.
    case failed(String)

    public var description: String {
        switch self {
        case let .invalidURL(reason): "--database: \(reason)"
        case let .failed(reason): "PostgreSQL: \(reason)"
        }
    }
}
