import ArgumentParser
import Foundation
import SwiftRTC

/// What to send as audio: `--audio tone|silence|FILE`.
enum AudioInput: Equatable, ExpressibleByArgument, CustomStringConvertible {
    case tone, silence
    /// A WAV (PCM) or Ogg Opus file.
    case file(String)

    init?(argument: String) {
        switch argument {
        case "": return nil
        case "tone": self = .tone
        case "silence": self = .silence
        default: self = .file(argument)
        }
    }

    var description: String {
        switch self {
        case .tone: "tone"
        case .silence: "silence"
        case let .file(path): path
        }
    }

    /// Checks that a file input exists and is a WAV or Ogg Opus file (by opening it).
    func validate() throws {
        guard case let .file(path) = self else { return }
        guard FileManager.default.fileExists(atPath: path) else {
            throw ValidationError(
                "--audio \(path): no such file (expected tone, silence, or a .wav or .ogg/.opus file)"
            )
        }
        do {
            switch Self.format(of: path) {
            case .wav: _ = try WAVReader(path: path)
            case .oggOpus: _ = try OggOpusReader(path: path)
            case nil:
                throw ValidationError(
                    "--audio \(path): unknown file type (expected a .wav or an Ogg Opus .ogg/.opus file)"
                )
            }
        } catch let error as MediaFileError {
            throw ValidationError("--audio \(path): \(error)")
        }
    }

    enum FileFormat { case wav, oggOpus }

    static func format(of path: String) -> FileFormat? {
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "wav", "wave": .wav
        case "ogg", "opus", "oga": .oggOpus
        default: nil
        }
    }
}

/// What to send as video: `--video pattern|black|FILE`.
enum VideoInput: Equatable, ExpressibleByArgument, CustomStringConvertible {
    case pattern, black
    /// A Y4M (raw I420) or IVF (VP8) file.
    case file(String)

    init?(argument: String) {
        switch argument {
        case "": return nil
        case "pattern": self = .pattern
        case "black": self = .black
        default: self = .file(argument)
        }
    }

    var description: String {
        switch self {
        case .pattern: "pattern"
        case .black: "black"
        case let .file(path): path
        }
    }

    /// Checks that a file input exists and is a Y4M or IVF file (by opening it).
    func validate() throws {
        guard case let .file(path) = self else { return }
        guard FileManager.default.fileExists(atPath: path) else {
            throw ValidationError("--video \(path): no such file (expected pattern, black, or a .y4m or .ivf file)")
        }
        do {
            switch Self.format(of: path) {
            case .y4m: _ = try Y4MReader(path: path)
            case .ivf: _ = try IVFReader(path: path)
            case nil: throw ValidationError("--video \(path): unknown file type (expected a .y4m or a VP8 .ivf file)")
            }
        } catch let error as MediaFileError {
            throw ValidationError("--video \(path): \(error)")
        }
    }

    enum FileFormat { case y4m, ivf }

    static func format(of path: String) -> FileFormat? {
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "y4m": .y4m
        case "ivf": .ivf
        default: nil
        }
    }
}

/// `--audio`, `--video`, `--no-audio`, `--no-video`.
struct MediaOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Audio to send: tone (440 Hz), silence, or a WAV or Ogg Opus FILE. (default: tone)",
            valueName: "tone|silence|FILE"
        )
    )
    var audio: AudioInput?

    @Option(
        help: ArgumentHelp(
            "Video to send: pattern (moving test pattern), black, or a Y4M or VP8 IVF FILE. (default: pattern)",
            valueName: "pattern|black|FILE"
        )
    )
    var video: VideoInput?

    @Flag(help: "Send no audio.")
    var noAudio = false

    @Flag(help: "Send no video.")
    var noVideo = false

    func validate() throws {
        if noAudio, let audio { throw ValidationError("--no-audio and --audio \(audio) cannot be combined") }
        if noVideo, let video { throw ValidationError("--no-video and --video \(video) cannot be combined") }
        try audio?.validate()
        try video?.validate()
    }
}

/// `--ice-server URL` (repeatable), `--ice-username`, `--ice-credential` (or
/// `--ice-credential-file`, `$SWIFTRTC_ICE_CREDENTIAL`: never logged), `--relay-only`. A
/// username or credential given once is every TURN server's; given once per TURN server, the
/// n-th is the n-th `turn:`/`turns:` server's, in the order of `--ice-server`.
struct IceOptions: ParsableArguments {
    /// The environment variable the TURN credential is read from when neither option is given.
    static let credentialVariable = "SWIFTRTC_ICE_CREDENTIAL"

    @Option(
        name: .customLong("ice-server"),
        help: ArgumentHelp("A STUN or TURN server (stun:, turn:, turns: URL); repeatable.", valueName: "URL")
    )
    var iceServerURLs: [String] = []

    @Option(
        help: ArgumentHelp(
            "The username for the TURN servers: once for all, or once per TURN server in their order.",
            valueName: "U"
        )
    )
    var iceUsername: [String] = []

    @Option(
        help: ArgumentHelp(
            "The credential (password) for the TURN servers, once or once per TURN server; better: --ice-credential-file or $\(Self.credentialVariable).",
            valueName: "C"
        )
    )
    var iceCredential: [String] = []

    @Option(
        help: ArgumentHelp(
            "Read the TURN credential from the first line of FILE; once, or once per TURN server.",
            valueName: "FILE"
        )
    )
    var iceCredentialFile: [String] = []

    @Flag(help: "Use relayed (TURN) candidates only.")
    var relayOnly = false

    /// The TURN credentials: each `--ice-credential`, else the first line of each
    /// `--ice-credential-file`, else `$SWIFTRTC_ICE_CREDENTIAL`; empty when none is given.
    func credentials(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> [String] {
        if !iceCredential.isEmpty && !iceCredentialFile.isEmpty {
            throw ValidationError("--ice-credential and --ice-credential-file cannot be combined: give one")
        }
        if !iceCredential.isEmpty { return try iceCredential.map { try Secret.nonEmpty($0, from: "--ice-credential") } }
        let files: [String?] = iceCredentialFile.isEmpty ? [nil] : iceCredentialFile
        return try files.compactMap { file in
            try Secret.read(
                option: "--ice-credential",
                value: nil,
                fileOption: "--ice-credential-file",
                file: file,
                variable: Self.credentialVariable,
                environment: environment,
                check: Secret.nonEmpty
            )
        }
    }

    /// The value of a per-TURN-server option for the `index`-th TURN server of `count`: the
    /// one value for all, or the index-th; throws when the option was given another number
    /// of times.
    static func perServer(_ values: [String], _ option: String, index: Int, count: Int) throws -> String? {
        guard values.count > 1 else { return values.first }
        guard values.count == count else {
            throw ValidationError(
                "\(option) was given \(values.count) times for \(count) TURN servers: give it once or once each"
            )
        }
        return values[index]
    }

    /// The parsed servers; TURN servers get their username and credential.
    func servers() throws -> [IceServer] {
        let turnCount = iceServerURLs.filter { $0.lowercased().hasPrefix("turn") }.count
        let credentials = turnCount > 0 ? try self.credentials() : []
        var turnIndex = 0
        return try iceServerURLs.map { url in
            let isTurn = url.lowercased().hasPrefix("turn")
            var username: String?, credential: String?
            if isTurn {
                username = try Self.perServer(iceUsername, "--ice-username", index: turnIndex, count: turnCount)
                credential = try Self.perServer(credentials, "--ice-credential", index: turnIndex, count: turnCount)
                turnIndex += 1
            }
            do {
                return try IceServer(url: url, username: username, credential: credential)
            } catch {
                var message = "--ice-server: \(error)"
                if isTurn && (username == nil || credential == nil) {
                    message +=
                        " (give --ice-username and --ice-credential, --ice-credential-file or $\(Self.credentialVariable))"
                }
                throw ValidationError(message)
            }
        }
    }

    func validate() throws {
        let servers = try servers()
        let relays = servers.filter(\.scheme.isRelay)
        if relayOnly && relays.isEmpty {
            throw ValidationError(
                "--relay-only needs a TURN server (--ice-server turn:HOST:PORT with --ice-username and --ice-credential)"
            )
        }
        // The environment variable is ambient: only the options ask for a TURN server.
        if (!iceUsername.isEmpty || !iceCredential.isEmpty || !iceCredentialFile.isEmpty) && relays.isEmpty {
            throw ValidationError(
                "--ice-username and --ice-credential are for TURN servers, and no turn: or turns: --ice-server was given"
            )
        }
    }
}

/// `--report FILE`, `--stats-interval SECONDS`, `--duration SECONDS`.
struct RunOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Stop after this many seconds (default: run until interrupted).", valueName: "SECONDS"))
    var duration: Double?

    @Option(help: ArgumentHelp("Write the bot report (JSON) to FILE at the end.", valueName: "FILE"))
    var report: String?

    @Option(help: ArgumentHelp("Print the stats every SECONDS.", valueName: "SECONDS"))
    var statsInterval: Double = 5

    func validate() throws {
        try Seconds.check(duration, "--duration")
        try Seconds.check(statsInterval, "--stats-interval")
        try ReportPath.check(report)
    }
}
