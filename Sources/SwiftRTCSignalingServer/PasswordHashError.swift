import Crypto
import CryptoExtras
import Foundation

/// A password hash that cannot be used.
public enum PasswordHashError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not a ``PasswordHash``: what is wrong with it.
    case malformed(String)
    /// The hash has fewer iterations than ``PasswordHash/minimumIterations``: too cheap to
    /// guess at today; the password must be hashed again.
    case tooFewIterations(Int, minimum: Int)

    public var description: String {
        switch self {
        case let .malformed(reason): "malformed password hash: \(reason)"
        case let .tooFewIterations(iterations, minimum):
            "password hash with \(iterations) PBKDF2 iterations, below the minimum of \(minimum) (OWASP's figure for PBKDF2-HMAC-SHA256): hash the password again"
        }
    }
}
