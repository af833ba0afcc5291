import ArgumentParser
import Foundation
import SwiftRTC

/// callbot's exit codes, the same for every command (README, "Exit codes"): a script can tell
/// a wrong command line from a refused login, an unreachable server and a call that failed.
enum CallbotExit {
    /// The run did not succeed: a call not completed, a publish or a check that failed.
    static let failed = ExitCode(1)
    /// The command line is wrong (ArgumentParser's own code for a validation error, EX_USAGE).
    static let usage = ExitCode.validationFailure
    /// No server could be reached, or none answered in time (EX_UNAVAILABLE).
    static let unreachable = ExitCode(69)
    /// A server was reached and refused the token or password (EX_NOPERM).
    static let refused = ExitCode(77)

    /// Prints `Error: MESSAGE` on standard error, as ArgumentParser prints other errors, and
    /// returns `code` to throw.
    static func fail(_ code: ExitCode, _ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
        return code
    }

    /// The code of a WHIP offer that failed with `error`: refused for 401 or 403, unreachable
    /// when no response came (or TLS failed), failed otherwise.
    static func code(forPublishing error: any Error) -> ExitCode {
        switch error {
        case WHIPError.unexpectedStatus(_, _, let status, _, _) where status == 401 || status == 403: refused
        case WHIPError.transport, WHIPError.timedOut, WHIPError.tls: unreachable
        default: failed
        }
    }
}
