import Crypto
import Foundation

/// A salted, iterated password hash: PBKDF2 with HMAC-SHA256 (RFC 8018 §5.2), the form the
/// signaling server's users file stores instead of passwords.
///
/// Its text form is `pbkdf2-sha256$<iterations>$<salt, base64>$<derived key, base64>`, the same
/// as Python's `hashlib.pbkdf2_hmac("sha256", password, salt, iterations)` gives, so a users
/// file can be written with any PBKDF2 tool (see the server's README).
public struct PasswordHash: Sendable, Hashable, CustomStringConvertible {
    /// The scheme name that starts the text form.
    public static let scheme = "pbkdf2-sha256"
    /// Iterations used by ``make(password:iterations:)`` by default.
    public static let defaultIterations = 100_000
    /// Fewer iterations than this are refused when parsing (too cheap to guess at).
    public static let minimumIterations = 1_000
    /// More than this are refused (a users file cannot make each login cost minutes).
    public static let maximumIterations = 10_000_000

    /// PBKDF2 iteration count.
    public let iterations: Int
    /// The random salt.
    public let salt: [UInt8]
    /// The derived key (32 bytes).
    public let derivedKey: [UInt8]

    /// Hashes `password` with a new random 16-byte salt.
    public static func make(password: String, iterations: Int = defaultIterations) -> PasswordHash {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return PasswordHash(iterations: iterations, salt: salt,
                            derivedKey: pbkdf2SHA256(password: Array(password.utf8), salt: salt, iterations: iterations, length: 32))
    }

    /// Parses the text form; the error says what is wrong.
    public init(parsing text: some StringProtocol) throws(PasswordHashError) {
        let parts = text.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4 else { throw .malformed("expected \(Self.scheme)$ITERATIONS$SALT$KEY") }
        guard parts[0] == Self.scheme else { throw .malformed("unknown scheme '\(parts[0])' (expected \(Self.scheme))") }
        guard let iterations = Int(parts[1]), (Self.minimumIterations...Self.maximumIterations).contains(iterations) else {
            throw .malformed("iterations '\(parts[1])' must be a number from \(Self.minimumIterations) to \(Self.maximumIterations)")
        }
        guard let salt = Data(base64Encoded: String(parts[2])), salt.count >= 8 else {
            throw .malformed("the salt must be base64 of at least 8 bytes")
        }
        guard let key = Data(base64Encoded: String(parts[3])), key.count == 32 else {
            throw .malformed("the key must be base64 of 32 bytes (a SHA-256 output)")
        }
        self.init(iterations: iterations, salt: Array(salt), derivedKey: Array(key))
    }

    private init(iterations: Int, salt: [UInt8], derivedKey: [UInt8]) {
        self.iterations = iterations
        self.salt = salt
        self.derivedKey = derivedKey
    }

    /// Whether `password` hashes to this hash (compared in constant time).
    public func matches(password: String) -> Bool {
        let candidate = Self.pbkdf2SHA256(password: Array(password.utf8), salt: salt, iterations: iterations, length: derivedKey.count)
        return Self.constantTimeEqual(candidate, derivedKey)
    }

    public var description: String {
        "\(Self.scheme)$\(iterations)$\(Data(salt).base64EncodedString())$\(Data(derivedKey).base64EncodedString())"
    }

    /// PBKDF2 (RFC 8018 §5.2) with HMAC-SHA256 as the pseudorandom function:
    ///
    ///     T_i = U_1 xor U_2 xor ... xor U_c
    ///     U_1 = HMAC(P, S || INT(i)),  U_j = HMAC(P, U_{j-1})
    ///     DK  = T_1 || T_2 || ... (first dkLen bytes)
    static func pbkdf2SHA256(password: [UInt8], salt: [UInt8], iterations: Int, length: Int) -> [UInt8] {
        let key = SymmetricKey(data: password)
        var output: [UInt8] = []
        output.reserveCapacity(length + 32)
        var block: UInt32 = 1
        while output.count < length {
            var authenticator = HMAC<SHA256>(key: key)
            authenticator.update(data: salt)
            authenticator.update(data: [UInt8(block >> 24), UInt8(truncatingIfNeeded: block >> 16),
                                        UInt8(truncatingIfNeeded: block >> 8), UInt8(truncatingIfNeeded: block)])
            var u = Array(authenticator.finalize())
            var t = u
            var round = 1
            while round < iterations {
                u = Array(HMAC<SHA256>.authenticationCode(for: u, using: key))
                for index in t.indices { t[index] ^= u[index] }
                round += 1
            }
            output += t
            block += 1
        }
        return Array(output.prefix(length))
    }

    /// Equal length and bytes, taking the same time whatever byte differs.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

/// A password hash that cannot be parsed.
public enum PasswordHashError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not a ``PasswordHash``: what is wrong with it.
    case malformed(String)

    public var description: String {
        switch self {
        case let .malformed(reason): "malformed password hash: \(reason)"
        }
    }
}
