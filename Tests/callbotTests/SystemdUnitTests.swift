import Foundation
import TestScheduling
import Testing

/// `Deploy/systemd/callbot-serve.service`, the unit an operator installs: `systemd-analyze
/// verify` finds nothing to say of it, its hardening scores as such, it promises what
/// Deploy/README.md says, and its command line, with its own defaults, starts `callbot serve`.
@Suite struct SystemdUnitTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let unit = root.appendingPathComponent("Deploy/systemd/callbot-serve.service")
    /// Where the unit expects the binary.
    static let installedBinary = "/opt/callbot/callbot"

    /// systemd-analyze (Debian package `systemd`), or nil.
    static let analyze: URL? = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].map(URL.init(fileURLWithPath:))
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    /// The unit with the built callbot in place of the installed one (verify checks that
    /// ExecStart's binary exists), in a folder of its own, under the unit's name.
    static func unitWithBuiltBinary() throws -> URL {
        let text = try String(contentsOf: unit, encoding: .utf8)
        #expect(text.contains("ExecStart=\(installedBinary) serve "))
        let folder = try ScratchFolder.make("systemd-unit")
        let copy = folder.appendingPathComponent("callbot-serve.service")
        try text.replacingOccurrences(of: installedBinary, with: Callbot.executable.path)
            .write(to: copy, atomically: true, encoding: .utf8)
        return copy
    }

    /// The unit's `[Service]` settings: each key's values, in order.
    static func settings() throws -> [String: [String]] {
        var settings: [String: [String]] = [:]
        for line in try String(contentsOf: unit, encoding: .utf8).split(separator: "\n")
        where !line.hasPrefix("#") && !line.hasPrefix("[") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            settings[String(line[..<equals]), default: []].append(String(line[line.index(after: equals)...]))
        }
        return settings
    }

    @Test(.enabled(if: SystemdUnitTests.analyze != nil, "systemd-analyze is not installed (Debian package systemd)"))
    func systemdAnalyzeVerifiesTheUnitWithoutAWord() async throws {
        let copy = try Self.unitWithBuiltBinary()
        let result = try await runToEnd(try #require(Self.analyze), ["verify", copy.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.isEmpty && result.stdout.isEmpty, "warnings: \(result.stdout)\(result.stderr)")
    }

    /// `systemd-analyze security` rates the exposure of a unit from 0 (locked down) to 10; a
    /// unit without hardening rates 9.6. This one stays under 2.5 (1.6 when written).
    @Test(.enabled(if: SystemdUnitTests.analyze != nil, "systemd-analyze is not installed (Debian package systemd)"))
    func theHardeningRatesAsLowExposure() async throws {
        let copy = try Self.unitWithBuiltBinary()
        let result = try await runToEnd(
            try #require(Self.analyze),
            ["security", "--offline=yes", "--threshold=25", "--no-pager", copy.path]
        )
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("Overall exposure level"), "\(result.stdout)")
    }

    @Test func theUnitRunsADedicatedUserHardenedAndReloadsOnSIGHUP() throws {
        let settings = try Self.settings()
        let expected: [String: String] = [
            "User": "callbot", "Group": "callbot", "NoNewPrivileges": "yes", "ProtectSystem": "strict",
            "ProtectHome": "yes", "PrivateTmp": "yes", "StateDirectory": "callbot", "Restart": "on-failure",
            "ExecReload": "/bin/kill -HUP $MAINPID", "LimitNOFILE": "65536", "CapabilityBoundingSet": "",
            "EnvironmentFile": "-/etc/callbot/serve.env",
        ]
        for (key, value) in expected {
            #expect(settings[key]?.last == value, "\(key)=\(settings[key] ?? [])")
        }
        // The call log is in the state directory, the users file outside it (read again on SIGHUP).
        let environment = Dictionary(
            (settings["Environment"] ?? []).compactMap { assignment -> (String, String)? in
                guard let equals = assignment.firstIndex(of: "=") else { return nil }
                return (String(assignment[..<equals]), String(assignment[assignment.index(after: equals)...]))
            }
        ) { _, last in last }
        #expect(environment["CALLBOT_DATABASE"]?.hasPrefix("/var/lib/callbot/") == true)
        #expect(environment["CALLBOT_USERS_FILE"] == "/etc/callbot/tokens.txt")
        // No secret on the command line.
        let start = try #require(settings["ExecStart"]?.first)
        #expect(!start.contains("--token ") && !start.contains("PASSWORD"), "\(start)")
    }

    /// The unit's ExecStart with its own default settings (paths moved to a scratch folder, a
    /// free port) is a command line `callbot serve` takes: it starts, serves, and stops on SIGTERM.
    @Test func theUnitsCommandLineStartsTheServer() async throws {
        let settings = try Self.settings()
        var environment: [String: String] = [:]
        for assignment in settings["Environment"] ?? [] {
            guard let equals = assignment.firstIndex(of: "=") else { continue }
            environment[String(assignment[..<equals])] = String(assignment[assignment.index(after: equals)...])
        }
        let folder = try ScratchFolder.make("systemd-unit-run")
        let tokens = folder.appendingPathComponent("tokens.txt").path
        try "alice:alice-unit-token-0123456789\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        environment["CALLBOT_PORT"] = "0"
        environment["CALLBOT_DATABASE"] = folder.appendingPathComponent("calls.sqlite").path
        environment["CALLBOT_USERS_FILE"] = tokens
        // systemd's expansion: ${NAME} is one word, $NAME splits into words (none when empty).
        var words: [String] = []
        for word in try #require(settings["ExecStart"]?.first).split(separator: " ").map(String.init) {
            if word.hasPrefix("${"), word.hasSuffix("}") {
                words.append(environment[String(word.dropFirst(2).dropLast())] ?? "")
            } else if word.hasPrefix("$") {
                words += (environment[String(word.dropFirst())] ?? "").split(separator: " ").map(String.init)
            } else {
                words.append(word)
            }
        }
        #expect(Array(words.prefix(2)) == [Self.installedBinary, "serve"])
        let server = try ServeCLITests.Server(Array(words.dropFirst(2)))
        let url = try await server.ready()
        #expect(url.host == "127.0.0.1")
        #expect(try await server.terminate() == 0)
        #expect(FileManager.default.fileExists(atPath: environment["CALLBOT_DATABASE"] ?? ""))
    }
}
