import ArgumentParser
import Foundation

/// A secret the bot is given (a bearer token, a TURN credential) in one of three ways: the
/// option itself (`--token T`), the first line of a file (`--token-file FILE`), or an
/// environment variable. A value on the command line is visible to every user of the machine
/// (`ps`); the file or the variable keep it out of sight. Secrets are never logged, and no
/// error message quotes one: errors name where the secret came from.
enum Secret {
    /// The largest secret file read (a secret is a line; a larger file is a mistake).
    static let maxFileBytes = 4096

    /// The secret: `value` (given as `option`), else the first line of `file` (given as
    /// `fileOption`, surrounding spaces removed), else the environment variable `variable`;
    /// nil when none is set. `check` gets each candidate and where it came from, and returns it
    /// or throws (naming the source, never the value).
    static func read(
        option: String,
        value: String?,
        fileOption: String,
        file: String?,
        variable: String,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        check: (_ secret: String, _ source: String) throws -> String
    ) throws -> String? {
        if value != nil && file != nil {
            throw ValidationError("\(option) and \(fileOption) cannot be combined: give one")
        }
        if let value { return try check(value, option) }
        if let file {
            guard let handle = FileHandle(forReadingAtPath: file) else {
                throw ValidationError("\(fileOption) \(file): cannot read it (no such file, or no permission)")
            }
            defer { try? handle.close() }
            let data = (try? handle.read(upToCount: maxFileBytes + 1)) ?? Data()
            guard data.count <= maxFileBytes else {
                throw ValidationError("\(fileOption) \(file): over \(maxFileBytes) bytes, not a secret")
            }
            let line = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first ?? ""
            return try check(line.trimmingCharacters(in: .whitespaces), "\(fileOption) \(file)")
        }
        if let secret = environment[variable] { return try check(secret, "$\(variable)") }
        return nil
    }

    /// A secret that is not empty.
    static func nonEmpty(_ secret: String, from source: String) throws -> String {
        guard !secret.isEmpty else { throw ValidationError("\(source): it is empty") }
        return secret
    }
}
