import Crypto
import Foundation
import SwiftRTCSignaling

/// Who may connect to the signaling server, and how a connection proves who it is.
///
/// A connection's first message is a `hello` with a token; the user a connection acts as from
/// then on is the one its token names, never a field of a message.
///
/// - ``tokens(_:)``: each token stands for one user. The server keeps only the tokens'
///   SHA-256 digests and looks tokens up by digest.
/// - ``users(_:)``: the token is `USER:PASSWORD`, checked against a ``PasswordHash`` per user
///   (PBKDF2-HMAC-SHA256, salted, at least ``PasswordHash/minimumIterations`` iterations).
///   Each check costs a fraction of a second of CPU (``requiresPasswordCheck``).
///
/// Files (``load(tokensFile:)``, ``load(usersFile:)``) hold one `USER:SECRET` entry a line;
/// blank lines and lines starting with `#` are skipped.
public struct SignalingCredentials: Sendable {
    /// The shortest token accepted: shorter ones are too easy to guess.
    public static let minimumTokenLength = 16

    enum Storage: Sendable {
        case tokens([Data: String])
        /// Users' hashes, and a decoy hash of the same cost for names nobody has.
        case users([String: PasswordHash], decoy: PasswordHash)
    }

    let storage: Storage

    init(storage: Storage) {
        self.storage = storage
    }

    /// Bearer tokens, each mapped to the user it authenticates (`token → user`).
    public static func tokens(_ tokens: [String: String]) throws(SignalingCredentialsError) -> SignalingCredentials {
        var digests: [Data: String] = [:]
        for (token, user) in tokens.sorted(by: { $0.value < $1.value }) {
            guard SignalingLimits.isValidUserID(user) else {
                throw .invalidEntry(
                    file: nil,
                    line: nil,
                    "'\(user)' is not a user id (letters, digits, . _ - @; 1 to 64)"
                )
            }
            guard token.count >= minimumTokenLength, !token.contains(where: \.isWhitespace) else {
                throw .invalidEntry(
                    file: nil,
                    line: nil,
                    "the token of \(user) must be at least \(minimumTokenLength) characters without spaces"
                )
            }
            digests[Data(SHA256.hash(data: Array(token.utf8)))] = user
        }
        return SignalingCredentials(storage: .tokens(digests))
    }

    /// Users and their password hashes.
    public static func users(_ users: [String: PasswordHash]) throws(SignalingCredentialsError) -> SignalingCredentials
    {
        for user in users.keys where !SignalingLimits.isValidUserID(user) {
            throw .invalidEntry(file: nil, line: nil, "'\(user)' is not a user id (letters, digits, . _ - @; 1 to 64)")
        }
        let decoy = PasswordHash.decoy(
            iterations: users.values.map(\.iterations).max() ?? PasswordHash.minimumIterations
        )
        return SignalingCredentials(storage: .users(users, decoy: decoy))
    }

    /// Reads a tokens file: `USER:TOKEN` lines.
    public static func load(tokensFile path: String) throws(SignalingCredentialsError) -> SignalingCredentials {
        var tokens: [String: String] = [:]
        var users = Set<String>()
        for (number, user, secret) in try entries(ofFile: path) {
            guard secret.count >= minimumTokenLength, !secret.contains(where: \.isWhitespace) else {
                throw .invalidEntry(
                    file: path,
                    line: number,
                    "the token of \(user) must be at least \(minimumTokenLength) characters without spaces"
                )
            }
            guard tokens[secret] == nil else {
                throw .invalidEntry(file: path, line: number, "this token is already given to \(tokens[secret] ?? "")")
            }
            guard users.insert(user).inserted else {
                throw .invalidEntry(file: path, line: number, "user \(user) appears twice")
            }
            tokens[secret] = user
        }
        return try Self.tokens(tokens)
    }

    /// Reads a users file: `USER:pbkdf2-sha256$ITERATIONS$SALT$KEY` lines (see ``PasswordHash``).
    /// A hash with fewer than ``PasswordHash/minimumIterations`` iterations (a file written
    /// before the minimum was raised to 600 000) is refused with the line and what to do.
    public static func load(usersFile path: String) throws(SignalingCredentialsError) -> SignalingCredentials {
        var users: [String: PasswordHash] = [:]
        for (number, user, secret) in try entries(ofFile: path) {
            guard users[user] == nil else {
                throw .invalidEntry(file: path, line: number, "user \(user) appears twice")
            }
            do {
                users[user] = try PasswordHash(parsing: secret)
            } catch {
                throw .invalidEntry(
                    file: path,
                    line: number,
                    "\(error) (write the line again with `callbot serve --hash-password \(user)`)"
                )
            }
        }
        return try Self.users(users)
    }

    /// The `USER:SECRET` lines of a file, with their line numbers; nothing else is allowed.
    private static func entries(ofFile path: String) throws(SignalingCredentialsError) -> [(Int, String, String)] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(file: path, (error as NSError).localizedDescription)
        }
        guard let text = String(data: data, encoding: .utf8) else { throw .unreadable(file: path, "not UTF-8 text") }
        var entries: [(Int, String, String)] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let colon = line.firstIndex(of: ":") else {
                throw .invalidEntry(file: path, line: index + 1, "expected USER:SECRET, found no ':'")
            }
            let user = String(line[..<colon])
            let secret = String(line[line.index(after: colon)...])
            guard SignalingLimits.isValidUserID(user) else {
                throw .invalidEntry(
                    file: path,
                    line: index + 1,
                    "'\(user)' is not a user id (letters, digits, . _ - @; 1 to 64)"
                )
            }
            guard !secret.isEmpty else {
                throw .invalidEntry(file: path, line: index + 1, "no secret after '\(user):'")
            }
            entries.append((index + 1, user, secret))
        }
        guard !entries.isEmpty else { throw .noEntries(file: path) }
        return entries
    }

    /// The user the token of a `hello` message authenticates, or nil.
    ///
    /// With ``tokens(_:)`` the token is one of the configured tokens; with ``users(_:)`` it is
    /// `USER:PASSWORD`.
    public func authenticate(token: String) -> String? {
        switch storage {
        case let .tokens(digests):
            // Lookup by SHA-256 digest: the secret itself is never compared.
            return digests[Data(SHA256.hash(data: Array(token.utf8)))]
        case let .users(users, decoy):
            guard let colon = token.firstIndex(of: ":") else { return nil }
            let user = String(token[..<colon])
            let password = String(token[token.index(after: colon)...])
            guard let hash = users[user] else {
                // Spend the same work for unknown users, so timing does not tell who exists.
                _ = decoy.matches(password: password)
                return nil
            }
            return hash.matches(password: password) ? user : nil
        }
    }

    /// What lets `user` in: the SHA-256 digests of their tokens, or their password hash; empty
    /// for a user these credentials do not know. With tokens, a scan of them all.
    func secrets(of user: String) -> Set<Data> {
        switch storage {
        case let .tokens(digests): Set(digests.lazy.filter { $0.value == user }.map(\.key))
        case let .users(users, _): users[user].map { [Data($0.description.utf8)] } ?? []
        }
    }

    /// ``secrets(of:)`` of each of `users`, in one pass (a user these credentials do not know
    /// is left out).
    func secrets(of users: Set<String>) -> [String: Set<Data>] {
        var secrets: [String: Set<Data>] = [:]
        switch storage {
        case let .tokens(digests):
            for (digest, user) in digests where users.contains(user) { secrets[user, default: []].insert(digest) }
        case let .users(hashes, _):
            for user in users {
                if let hash = hashes[user] { secrets[user] = [Data(hash.description.utf8)] }
            }
        }
        return secrets
    }

    /// Whether `user` has a password in a users file (always false for tokens).
    func hasPassword(user: String) -> Bool {
        guard case let .users(users, _) = storage else { return false }
        return users[user] != nil
    }

    /// Whether ``authenticate(token:)`` checks a password hash (``users(_:)``): a fraction of a
    /// second of CPU per check, which the server runs off its pool and bounds in number.
    /// Token lookups (``tokens(_:)``) cost one SHA-256.
    public var requiresPasswordCheck: Bool {
        if case .users = storage { return true }
        return false
    }

    /// The users these credentials know, sorted.
    public var userIDs: [String] {
        switch storage {
        case let .tokens(digests): Array(Set(digests.values)).sorted()
        case let .users(users, _): users.keys.sorted()
        }
    }

    /// One stored credential (``PostgresStorage`` keeps them in the database): a token's
    /// SHA-256 digest (hex), or a user's ``PasswordHash``.
    struct Entry: Sendable, Hashable {
        enum Kind: String, Sendable {
            case token, password
        }

        let kind: Kind
        let user: String
        let secret: String
    }

    /// These credentials as stored entries (no token in the clear).
    var entries: [Entry] {
        switch storage {
        case let .tokens(digests):
            digests.map {
                Entry(kind: .token, user: $0.value, secret: $0.key.map { String(format: "%02x", $0) }.joined())
            }.sorted { $0.user < $1.user }
        case let .users(users, _):
            users.map { Entry(kind: .password, user: $0.key, secret: $0.value.description) }
        }
    }

    /// The SHA-256 digest (hex) of these credentials' entries, in a canonical order: the same
    /// users with the same secrets have the same digest, however their file is laid out.
    var digest: String {
        var hash = SHA256()
        for entry in entries.sorted(by: {
            ($0.user, $0.kind.rawValue, $0.secret) < ($1.user, $1.kind.rawValue, $1.secret)
        }) {
            hash.update(data: Array("\(entry.kind.rawValue) \(entry.user) \(entry.secret)\n".utf8))
        }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Credentials from stored entries, all of one kind.
    init(entries: [Entry]) throws(SignalingCredentialsError) {
        if entries.allSatisfy({ $0.kind == .token }) {
            var digests: [Data: String] = [:]
            for entry in entries {
                guard SignalingLimits.isValidUserID(entry.user), let digest = Self.digest(hex: entry.secret) else {
                    throw .invalidEntry(
                        file: nil,
                        line: nil,
                        "a stored token of '\(entry.user.prefix(64))' is not a SHA-256 digest"
                    )
                }
                digests[digest] = entry.user
            }
            self.init(storage: .tokens(digests))
        } else if entries.allSatisfy({ $0.kind == .password }) {
            var users: [String: PasswordHash] = [:]
            for entry in entries {
                do {
                    users[entry.user] = try PasswordHash(parsing: entry.secret)
                } catch {
                    throw .invalidEntry(
                        file: nil,
                        line: nil,
                        "the stored password hash of '\(entry.user.prefix(64))': \(error)"
                    )
                }
            }
            self = try .users(users)
        } else {
            throw .invalidEntry(file: nil, line: nil, "the stored users mix tokens and passwords")
        }
    }

    /// A SHA-256 digest from its 64 hex digits.
    private static func digest(hex: String) -> Data? {
        let bytes = Array(hex.utf8)
        guard bytes.count == 2 * SHA256Digest.byteCount else { return nil }
        var raw: [UInt8] = []
        for index in stride(from: 0, to: bytes.count, by: 2) {
            guard let byte = UInt8(String(decoding: bytes[index...index + 1], as: UTF8.self), radix: 16) else {
                return nil
            }
            raw.append(byte)
        }
        return Data(raw)
    }

    /// ``authenticate(token:)`` on a Dispatch thread: checking a password hash costs
    /// milliseconds of CPU that must not hold a thread of Swift's cooperative pool.
    public func authenticateOffPool(token: String) async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.authenticate(token: token)) }
        }
    }
}
