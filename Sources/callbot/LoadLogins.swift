import ArgumentParser
import Foundation
import SwiftRTCSignaling
import SwiftRTCSignalingServer

/// Who one bot of `callbot load` logs in as: the token it sends in its `hello` (a bearer token,
/// or `USER:PASSWORD` for a server with a users file), and the user it names when known from
/// a file (a `--token` names its user only once logged in).
struct LoadLogin: Sendable, Equatable {
    var user: String?
    var token: String
}

/// The logins of `callbot load`: `--tokens-file` (the server's tokens file, `USER:TOKEN`
/// lines: each bot logs in with TOKEN), `--users-file` (`USER:PASSWORD` lines, the plain
/// passwords of the server's users file: each bot logs in with `USER:PASSWORD`), or `--token`
/// given once per bot. Files are read as the server reads them: blank lines and lines starting
/// with `#` are skipped. Errors name the file and line, never a secret.
enum LoadLogins {
    /// The largest logins file read (5000 users with long secrets fit many times over).
    static let maxFileBytes = 16 << 20

    /// `USER:TOKEN` lines: the login is the token.
    static func read(tokensFile path: String) throws -> [LoadLogin] {
        let entries = try entries(ofFile: path, option: "--tokens-file")
        if let spaced = entries.firstIndex(where: { $0.secret.contains(where: \.isWhitespace) }) {
            throw ValidationError(
                "--tokens-file \(path): the token of \(entries[spaced].user) holds spaces (the server refuses such tokens)"
            )
        }
        return entries.map { LoadLogin(user: $0.user, token: $0.secret) }
    }

    /// `USER:PASSWORD` lines: the login is the whole `USER:PASSWORD` (a password may hold
    /// spaces inside; those around it are trimmed).
    static func read(usersFile path: String) throws -> [LoadLogin] {
        try entries(ofFile: path, option: "--users-file").map {
            LoadLogin(user: $0.user, token: "\($0.user):\($0.secret)")
        }
    }

    /// `--token` values: each one bot; the same token twice would be one user twice.
    static func tokens(_ tokens: [String]) throws -> [LoadLogin] {
        var seen = Set<String>()
        for (index, token) in tokens.enumerated() {
            guard !token.isEmpty else { throw ValidationError("--token number \(index + 1) is empty") }
            guard seen.insert(token).inserted else {
                throw ValidationError("--token number \(index + 1) repeats an earlier one (each bot is one user)")
            }
        }
        return tokens.map { LoadLogin(user: nil, token: $0) }
    }

    private static func entries(ofFile path: String, option: String) throws -> [(user: String, secret: String)] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ValidationError("\(option) \(path): cannot read it (no such file, or no permission)")
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maxFileBytes + 1)) ?? Data()
        guard data.count <= maxFileBytes else {
            throw ValidationError("\(option) \(path): over \(maxFileBytes >> 20) MiB")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ValidationError("\(option) \(path): not UTF-8 text")
        }
        var entries: [(user: String, secret: String)] = []
        var users = Set<String>()
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            let place = "\(option) \(path):\(index + 1)"
            guard let colon = line.firstIndex(of: ":") else {
                throw ValidationError("\(place): expected USER:SECRET, found no ':'")
            }
            let user = String(line[..<colon])
            let secret = String(line[line.index(after: colon)...])
            guard SignalingLimits.isValidUserID(user) else {
                throw ValidationError("\(place): not a user id (letters, digits, . _ - @; 1 to 64)")
            }
            guard !secret.isEmpty else { throw ValidationError("\(place): no secret after '\(user):'") }
            guard users.insert(user).inserted else { throw ValidationError("\(place): user \(user) appears twice") }
            entries.append((user, secret))
        }
        guard !entries.isEmpty else { throw ValidationError("\(option) \(path): no USER:SECRET lines") }
        return entries
    }
}
