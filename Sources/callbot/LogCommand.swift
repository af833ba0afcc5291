import ArgumentParser
import Foundation
import SwiftRTC

/// `callbot log --server URL --token T`: the logged-in user's call log from the signaling
/// server, newest first: one line per call, or `--json`.
struct LogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "List your call log from a signaling server: filters, pages, JSON.",
        discussion:
            "One line per call, newest first: ended time (UTC), role, the other users, conference type, result, duration."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var signaling: SignalingOptions
    @Option(help: "Only calls you made (caller) or received (callee).")
    var role: CallRole?
    @Option(help: "Only calls that ended this way: \(CallEndResult.allCases.map(\.rawValue).joined(separator: ", ")).")
    var result: CallEndResult?
    @Option(help: ArgumentHelp("Calls per page (1 to 500).", valueName: "N"))
    var limit = 20
    @Option(help: ArgumentHelp("Which page, from 1 (the newest calls).", valueName: "N"))
    var page = 1
    @Flag(help: "Print the records as a JSON array (the call records of the signaling protocol).")
    var json = false

    func validate() throws {
        guard (1...SignalingLimits.maxCallLogLimit).contains(limit) else {
            throw ValidationError("--limit must be 1 to \(SignalingLimits.maxCallLogLimit)")
        }
        guard page >= 1, (page - 1) * limit <= SignalingLimits.maxCallLogOffset else {
            throw ValidationError(
                "--page must be 1 to \(SignalingLimits.maxCallLogOffset / limit + 1) with --limit \(limit)"
            )
        }
    }

    func run() async throws {
        global.apply()
        let channel = try await signaling.connect()
        let client = CallClient(channel: channel)
        let records = try await client.callLog(role: role, result: result, limit: limit, offset: (page - 1) * limit)
        await client.disconnect()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            printLine(String(decoding: try encoder.encode(records), as: UTF8.self))
            return
        }
        let user = channel.userID
        let time = ISO8601DateFormatter()
        for record in records {
            let others = ([record.caller] + record.callees).filter { $0 != user }.joined(separator: ",")
            let role = record.caller == user ? "caller" : "callee"
            printLine(
                "\(time.string(from: record.ended)) \(role) \(others) \(record.conferenceType.rawValue) \(record.result.rawValue) \(String(format: "%.1f", record.duration)) s \(record.callId)"
            )
        }
        if records.isEmpty { printLine("no calls\(page > 1 ? " on page \(page)" : "")") }
    }
}

extension CallRole: ExpressibleByArgument {}
extension CallEndResult: ExpressibleByArgument {}
