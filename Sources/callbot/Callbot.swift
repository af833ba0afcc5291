import ArgumentParser
import Foundation
import Logging
import SwiftRTC

/// `callbot`: the headless call bot built on SwiftRTC.
@main
struct Callbot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "callbot",
        abstract: "A headless WebRTC call bot: dials and answers calls, speaks WHIP and WHEP, plays and records media.",
        version: "callbot \(SwiftRTCInfo.version)",
        subcommands: [
            Info.self, Sdp.self, Rtp.self, Demo.self, Whip.self, Whep.self, WhipServer.self, Serve.self,
            CallCommand.self, AnswerCommand.self, LogCommand.self, LoadCommand.self, Conference.self,
        ]
    )

    /// The application sets up logging, as swift-log wants: records go to standard error
    /// (standard output carries what the commands print); `--log-level` sets the level.
    static func main() async {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        await main(nil)
    }
}

/// Options every subcommand shares.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "How much to log: nothing, basic or verbose (verbose includes the media stack's internals)."
    )
    var logLevel: LogLevel = .basic

    /// Applies the options to the library.
    func apply() {
        SwiftRTCLogging.level = logLevel
    }
}

extension LogLevel: ExpressibleByArgument {}

/// `--stats-json`, for the commands that print live stats.
struct StatsOptions: ParsableArguments {
    @Flag(
        help:
            "Print the live stats as JSON lines, `STATS [USER ]{...}` (the W3C getStats shape), instead of statsString."
    )
    var statsJSON = false
}

/// The live stats line of `--stats-json`: `STATS ` (then the other user, for call sessions)
/// and the report as one JSON object.
func statsJSONLine(_ report: StatsReport, user: String? = nil) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let json = (try? encoder.encode(report)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    return "STATS " + (user.map { $0 + " " } ?? "") + json
}
