import ArgumentParser
import Foundation

/// `--token T`, `--token-file FILE` or `$SWIFTRTC_WHIP_TOKEN`: the WHIP bearer token that
/// `whip` sends and `whip-server` requires (`Authorization: Bearer T`).
///
/// A token on the command line is visible to every user of the machine (`ps`); the file (its
/// first line) or the environment variable keep it out of sight. The token is never logged,
/// and no error message quotes it.
struct WhipTokenOptions: ParsableArguments {
    /// The environment variable read when neither option is given.
    static let environmentVariable = "SWIFTRTC_WHIP_TOKEN"
    /// The largest token file read (a token is a line; a larger file is a mistake).
    static let maxFileBytes = 4096

    @Option(help: ArgumentHelp("The WHIP bearer token (whip sends it, whip-server requires it); better: --token-file or $\(Self.environmentVariable).", valueName: "T"))
    var token: String?

    @Option(help: ArgumentHelp("Read the WHIP bearer token from the first line of FILE.", valueName: "FILE"))
    var tokenFile: String?

    func validate() throws {
        _ = try value()
    }

    /// The token: `--token`, else the first line of `--token-file`, else the environment
    /// variable; nil when none is given.
    func value(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        if token != nil && tokenFile != nil { throw ValidationError("--token and --token-file cannot be combined: give one") }
        if let token { return try Self.checked(token, from: "--token") }
        if let tokenFile {
            guard let handle = FileHandle(forReadingAtPath: tokenFile) else {
                throw ValidationError("--token-file \(tokenFile): cannot read it (no such file, or no permission)")
            }
            defer { try? handle.close() }
            let data = (try? handle.read(upToCount: Self.maxFileBytes + 1)) ?? Data()
            guard data.count <= Self.maxFileBytes else {
                throw ValidationError("--token-file \(tokenFile): over \(Self.maxFileBytes) bytes, not a token")
            }
            let line = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first ?? ""
            return try Self.checked(line.trimmingCharacters(in: .whitespaces), from: "--token-file \(tokenFile)")
        }
        if let variable = environment[Self.environmentVariable] {
            return try Self.checked(variable, from: "$\(Self.environmentVariable)")
        }
        return nil
    }

    /// `token` if it can go into an `Authorization` header (printable ASCII, no spaces); the
    /// error names where it came from, never the token.
    private static func checked(_ token: String, from source: String) throws -> String {
        guard !token.isEmpty else { throw ValidationError("\(source): the token is empty") }
        guard token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw ValidationError("\(source): the token must be printable ASCII without spaces")
        }
        return token
    }
}
