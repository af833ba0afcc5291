import Foundation
import TestScheduling
import Testing

/// `callbot whip` and `callbot whip-server`: the flags of issue 7, exactly, and clear errors
/// (non-zero exit) for bad input.
@Suite struct WhipCLITests {
    static let sharedFlags = [
        "--audio", "--video", "--no-audio", "--no-video", "--duration", "--ice-server",
        "--ice-username", "--ice-credential", "--ice-credential-file", "--relay-only", "--report", "--stats-interval",
        "--max-audio-kbps", "--max-video-kbps", "--stats-json",
    ]

    /// The long options a help text lists.
    static func flags(inHelp help: String) -> Set<String> {
        var flags = Set<String>()
        for word in help.split(whereSeparator: {
            $0 == " " || $0 == "," || $0 == "\n" || $0 == "[" || $0 == "]" || $0 == "<"
        })
        where word.hasPrefix("--") {
            flags.insert(String(word.prefix { $0 != "=" }))
        }
        return flags
    }

    @Test func whipHasExactlyTheIssueFlags() async throws {
        let help = try await Callbot.run(["whip", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: callbot whip [<options>] <URL>"))
        #expect(
            Self.flags(inHelp: help.stdout)
                == Set(
                    Self.sharedFlags + [
                        "--token", "--token-file", "--ca-cert", "--log-level", "--metrics", "--events-json", "--help",
                        "--version", "--data-channel", "--data-messages", "--data-size", "--data-unordered",
                        "--data-max-retransmits", "--data-binary", "--trickle",
                    ]
                )
        )
        #expect(help.stdout.contains("tone|silence|FILE"))
        #expect(help.stdout.contains("pattern|black|FILE"))
    }

    @Test func whepHasItsFlags() async throws {
        let help = try await Callbot.run(["whep", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: callbot whep [<options>] <URL>"))
        #expect(
            Self.flags(inHelp: help.stdout)
                == [
                    "--record", "--ice-server", "--ice-username", "--ice-credential", "--ice-credential-file",
                    "--relay-only", "--duration", "--report", "--stats-interval", "--stats-json", "--token",
                    "--token-file", "--ca-cert", "--log-level", "--events-json", "--help", "--version",
                ]
        )
    }

    @Test func whipServerHasExactlyTheIssueFlags() async throws {
        let help = try await Callbot.run(["whip-server", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: callbot whip-server [<options>] --port <P>"))
        #expect(
            Self.flags(inHelp: help.stdout)
                == Set(
                    Self.sharedFlags + [
                        "--port", "--host", "--record", "--trim-silence", "--record-rollover-seconds",
                        "--record-rollover-megabytes", "--token", "--token-file",
                        "--max-sessions", "--max-sessions-per-address", "--connect-timeout", "--max-session-seconds",
                        "--record-max-megabytes", "--shutdown-timeout", "--tls-cert", "--tls-key", "--insecure",
                        "--max-tcp-connections",
                        "--max-tcp-connections-per-address", "--request-timeout", "--idle-timeout",
                        "--log-level", "--help", "--version", "--echo-data",
                    ]
                )
        )
    }

    static let folder: URL = {
        let url = (try? ScratchFolder.make("callbot-whip-cli")) ?? FileManager.default.temporaryDirectory
        _ = FileManager.default.createFile(
            atPath: url.appendingPathComponent("song.mp3").path,
            contents: Data("ID3".utf8)
        )
        _ = FileManager.default.createFile(
            atPath: url.appendingPathComponent("broken.wav").path,
            contents: Data("RIFF\u{0}\u{0}".utf8)
        )
        _ = FileManager.default.createFile(
            atPath: url.appendingPathComponent("broken.ivf").path,
            contents: Data("DKIF".utf8)
        )
        return url
    }()

    /// Bad command lines: each exits non-zero and says what is wrong.
    @Test(arguments: [
        (["whip", "ftp://127.0.0.1/whip"], "is not a WHIP endpoint URL"),
        (["whip", "not a url"], "is not a WHIP endpoint URL"),
        (["whip"], "Missing expected argument '<URL>'"),
        (["whip", "http://127.0.0.1:1/whip", "--audio", "@/nosuch.wav"], "no such file"),
        (["whip", "http://127.0.0.1:1/whip", "--audio", "@/song.mp3"], "unknown file type"),
        (["whip", "http://127.0.0.1:1/whip", "--audio", "@/broken.wav"], "--audio @/broken.wav:"),
        (["whip", "http://127.0.0.1:1/whip", "--video", "@/nosuch.y4m"], "no such file"),
        (["whip", "http://127.0.0.1:1/whip", "--video", "@/song.mp3"], "unknown file type"),
        (["whip", "http://127.0.0.1:1/whip", "--video", "@/broken.ivf"], "--video @/broken.ivf:"),
        (
            ["whip", "http://127.0.0.1:1/whip", "--no-audio", "--audio", "tone"],
            "--no-audio and --audio tone cannot be combined"
        ),
        (
            ["whip", "http://127.0.0.1:1/whip", "--no-video", "--video", "black"],
            "--no-video and --video black cannot be combined"
        ),
        (["whip", "http://127.0.0.1:1/whip", "--no-audio", "--no-video"], "leave nothing to send"),
        (["whip", "http://127.0.0.1:1/whip", "--duration", "0"], "--duration must be a number of seconds above 0"),
        (["whip", "http://127.0.0.1:1/whip", "--duration", "-2"], "--duration"),
        (["whip", "http://127.0.0.1:1/whip", "--duration", "soon"], "soon"),
        (
            ["whip", "http://127.0.0.1:1/whip", "--stats-interval", "0"],
            "--stats-interval must be a number of seconds above 0"
        ),
        // Seconds that would trap when made a Duration are refused, in every command.
        (
            ["whip", "http://127.0.0.1:1/whip", "--duration", "1e300"],
            "--duration must be a number of seconds above 0 (at most 604800)"
        ),
        (
            ["call", "bob", "--server", "ws://127.0.0.1:1/signaling", "--token", "t", "--duration", "inf"],
            "--duration must be a number of seconds"
        ),
        (
            ["answer", "--server", "ws://127.0.0.1:1/signaling", "--token", "t", "--mute-after", "1e300"],
            "--mute-after must be a number of seconds from 0"
        ),
        (
            ["answer", "--server", "ws://127.0.0.1:1/signaling", "--token", "t", "--delay", "nan"],
            "--delay must be a number of seconds from 0"
        ),
        (
            ["whip", "http://127.0.0.1:1/whip", "--ice-server", "http://127.0.0.1:3478"],
            "invalid ICE server URL 'http://127.0.0.1:3478'"
        ),
        (
            ["whip", "http://127.0.0.1:1/whip", "--ice-server", "turn:127.0.0.1:3478"],
            "give --ice-username and --ice-credential"
        ),
        (["whip", "http://127.0.0.1:1/whip", "--relay-only"], "--relay-only needs a TURN server"),
        (
            ["whip", "http://127.0.0.1:1/whip", "--relay-only", "--ice-server", "stun:127.0.0.1"],
            "--relay-only needs a TURN server"
        ),
        (
            ["whip", "http://127.0.0.1:1/whip", "--ice-server", "stun:127.0.0.1", "--ice-username", "u"],
            "are for TURN servers"
        ),
        (
            ["whip", "http://127.0.0.1:1/whip", "--report", "/nonexistent-folder/r.json"],
            "the folder /nonexistent-folder does not exist"
        ),
        (["whip-server"], "Missing expected argument '--port <P>'"),
        (["whip-server", "--port", "70000"], "--port 70000 is not a TCP port"),
        (["whip-server", "--port", "http"], "http"),
        (
            ["whip-server", "--port", "0", "--record", "/nonexistent-folder"],
            "--record /nonexistent-folder: no such folder"
        ),
        (["whip-server", "--port", "0", "--trim-silence"], "add --record DIR"),
        (["whip-server", "--port", "0", "--no-audio", "--audio", "silence"], "cannot be combined"),
        (["whip-server", "--port", "0", "--relay-only"], "--relay-only needs a TURN server"),
        (["whep", "ftp://127.0.0.1/whep"], "'ftp://127.0.0.1/whep' is not a WHEP endpoint URL"),
        (
            ["whep", "http://127.0.0.1:1/whep", "--record", "/nonexistent-folder"],
            "--record /nonexistent-folder: no such folder"
        ),
        (["whep", "http://127.0.0.1:1/whep", "--relay-only"], "--relay-only needs a TURN server"),
    ])
    func badInputIsAClearError(arguments: [String], message: String) async throws {
        let resolved = arguments.map { $0.replacingOccurrences(of: "@/", with: Self.folder.path + "/") }
        let result = try await Callbot.run(resolved)
        #expect(result.status != 0)
        #expect(
            result.stderr.contains(message.replacingOccurrences(of: "@/", with: Self.folder.path + "/")),
            "\(result.stderr)"
        )
        #expect(result.stdout.isEmpty)
    }
}
