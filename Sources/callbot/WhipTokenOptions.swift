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

    @Option(
        help: ArgumentHelp(
            "The WHIP bearer token (whip sends it, whip-server requires it); better: --token-file or $\(Self.environmentVariable).",
            valueName: "T"
        )
    )
    var token: String?

    @Option(help: ArgumentHelp("Read the WHIP bearer token from the first line of FILE.", valueName: "FILE"))
    var tokenFile: String?

    func validate() throws {
        _ = try value()
    }

    /// The token: `--token`, else the first line of `--token-file`, else the environment
    /// variable; nil when none is given.
    func value(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        try Secret.read(
            option: "--token",
            value: token,
            fileOption: "--token-file",
            file: tokenFile,
            variable: Self.environmentVariable,
            environment: environment,
            check: Self.checked
        )
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
