import Crypto
import CryptoExtras
import Foundation

/// A salted, iterated password hash: PBKDF2 with HMAC-SHA256 (RFC 8018 §5.2, computed by
/// swift-crypto's `KDF.Insecure.PBKDF2`), the form the signaling server's users file stores
/// instead of passwords.
///
/// Its text form is `pbkdf2-sha256$<iterations>$<salt, base64>$<derived key, base64>`, the same
/// as Python's `hashlib.pbkdf2_hmac("sha256", password, salt, iterations)` gives, so a users
/// file can be written with any PBKDF2 tool (see the server's README).
///
/// The iteration count is at least ``minimumIterations`` (600 000, OWASP's figure for
/// PBKDF2-HMAC-SHA256 in its Password Storage Cheat Sheet); a hash with fewer is refused when
/// parsed (``PasswordHashError/tooFewIterations(_:minimum:)``): the password has to be hashed
/// again. One check costs about 0.2 s of a core (0.17 s measured in a debug build on a 2-core
/// test machine), which is why the server bounds how many run at once
/// (``SignalingServer/Configuration/maxConcurrentPasswordChecks``).
public struct PasswordHash: Sendable, Hashable, CustomStringConvertible {
    /// The scheme name that starts the text form.
    public static let scheme = "pbkdf2-sha256"
    /// Iterations used by ``make(password:)``: the minimum.
    public static let defaultIterations = minimumIterations
    /// Fewer iterations than this are refused when parsing: 600 000, OWASP's current minimum
    /// for PBKDF2-HMAC-SHA256 (Password Storage Cheat Sheet, 2023).
    public static let minimumIterations = 600_000
    /// More than this are refused (a users file cannot make each login cost seconds).
    public static let maximumIterations = 10_000_000
    /// The shortest salt accepted, in bytes (``make(password:)`` uses 16).
    public static let minimumSaltBytes = 8
    /// The length of the derived key: a SHA-256 output.
    public static let keyBytes = 32

    /// PBKDF2 iteration count.
    public let iterations: Int
    /// The random salt.
    public let salt: [UInt8]
    /// The derived key (32 bytes).
    public let derivedKey: [UInt8]

    /// Hashes `password` with a new random 16-byte salt and ``defaultIterations``.
    public static func make(password: String) -> PasswordHash {
        let salt = randomBytes(16)
        guard let key = derive(password: password, salt: salt, iterations: defaultIterations) else {
            // The iteration count is within swift-crypto's checked range: derivation cannot fail.
            preconditionFailure("PBKDF2 refused \(defaultIterations) iterations")
        }
        return PasswordHash(iterations: defaultIterations, salt: salt, derivedKey: key)
    }

    /// A hash that no password matches but that costs as much to check as a real one with
    /// `iterations` (the server checks it for names nobody has, so that timing does not tell
    /// who exists). Nothing is derived to make it.
    static func decoy(iterations: Int) -> PasswordHash {
        PasswordHash(iterations: iterations, salt: randomBytes(16), derivedKey: randomBytes(keyBytes))
    }

    /// Parses the text form; the error says what is wrong.
    public init(parsing text: some StringProtocol) throws(PasswordHashError) {
        let parts = text.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4 else { throw .malformed("expected \(Self.scheme)$ITERATIONS$SALT$KEY") }
        guard parts[0] == Self.scheme else {
            throw .malformed("unknown scheme '\(parts[0])' (expected \(Self.scheme))")
        }
        guard let iterations = Int(parts[1]), iterations > 0, iterations <= Self.maximumIterations else {
            throw .malformed(
                "iterations '\(parts[1])' must be a number from \(Self.minimumIterations) to \(Self.maximumIterations)"
            )
        }
        guard iterations >= Self.minimumIterations else {
            throw .tooFewIterations(iterations, minimum: Self.minimumIterations)
        }
        guard let salt = Data(base64Encoded: String(parts[2])), salt.count >= Self.minimumSaltBytes else {
            throw .malformed("the salt must be base64 of at least \(Self.minimumSaltBytes) bytes")
        }
        guard let key = Data(base64Encoded: String(parts[3])), key.count == Self.keyBytes else {
            throw .malformed("the key must be base64 of \(Self.keyBytes) bytes (a SHA-256 output)")
        }
        self.init(iterations: iterations, salt: Array(salt), derivedKey: Array(key))
    }

    private init(iterations: Int, salt: [UInt8], derivedKey: [UInt8]) {
        self.iterations = iterations
        self.salt = salt
        self.derivedKey = derivedKey
    }

    /// Whether `password` hashes to this hash (compared in constant time). Costs
    /// ``iterations`` HMAC-SHA256 pairs: run it off Swift's cooperative pool.
    public func matches(password: String) -> Bool {
        guard let candidate = Self.derive(password: password, salt: salt, iterations: iterations) else { return false }
        return Self.constantTimeEqual(candidate, derivedKey)
    }

    public var description: String {
        "\(Self.scheme)$\(iterations)$\(Data(salt).base64EncodedString())$\(Data(derivedKey).base64EncodedString())"
    }

    /// PBKDF2-HMAC-SHA256 of swift-crypto (BoringSSL); nil when it refuses the parameters
    /// (fewer than its own floor of 210 000 iterations, which parsing already rules out).
    static func derive(password: String, salt: [UInt8], iterations: Int) -> [UInt8]? {
        guard
            let key = try? KDF.Insecure.PBKDF2.deriveKey(
                from: Array(password.utf8),
                salt: salt,
                using: .sha256,
                outputByteCount: keyBytes,
                rounds: iterations
            )
        else { return nil }
        return key.withUnsafeBytes { Array($0) }
    }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Equal length and bytes, taking the same time whatever byte differs.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
