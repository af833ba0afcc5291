import Foundation
import Glibc
import SocketTestSupport
import TestScheduling
import Testing

#if canImport(Glibc)
#endif

/// Where things are: the package root (from this file's path), the Interop scripts, and the
/// built `callbot` beside the test bundle.
enum Interop {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let scripts = packageRoot.appendingPathComponent("Interop")

    static var callbot: URL {
        var url = Bundle.main.bundleURL
        while url.pathComponents.count > 1,
            !FileManager.default.fileExists(atPath: url.appendingPathComponent("callbot").path)
        {
            url.deleteLastPathComponent()
        }
        return url.appendingPathComponent("callbot")
    }

    /// A fresh folder for one test's logs, reports and recordings:
    /// `$TMPDIR/swiftrtc-interop-<pid>/<name>`, emptied at the start of each run and kept after it
    /// for a look at what happened (failure messages name the files).
    static func workFolder(_ name: String) throws -> URL {
        // One folder per test process: two test runs at once (two checkouts) never share files.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("swiftrtc-interop-\(getpid())")
            .appendingPathComponent(name)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A port a child process can listen on (TCP and UDP): ``unusedLoopbackPort()``.
    static func freePort() throws -> Int {
        guard let port = unusedLoopbackPort() else { throw InteropFailure("no unused loopback port") }
        return Int(port)
    }

    /// The full path of `tool` on PATH, or nil.
    static func which(_ tool: String) -> String? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(folder)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// The interop peers' dependencies; a missing one fails the test with what to install.
    enum Dependency { case aiortc, chromium, firefox, coturn, ffmpeg, espeak }

    static func require(_ dependencies: Dependency...) async throws {
        guard FileManager.default.isExecutableFile(atPath: callbot.path) else {
            throw InteropFailure("the built callbot is missing at \(callbot.path); run swift build first")
        }
        guard ProjectPython.exists else {
            throw InteropFailure(ProjectPython.missing("the interpreter"))
        }
        for dependency in dependencies {
            switch dependency {
            case .aiortc:
                let probe = try await ChildProcess.run(
                    ProjectPython.path,
                    ["-c", "import aiortc"],
                    timeout: .seconds(30)
                )
                guard probe.status == 0 else { throw InteropFailure(ProjectPython.missing("aiortc")) }
            case .chromium:
                guard which("chromium") != nil || which("chromium-browser") != nil else {
                    throw InteropFailure("chromium is missing; install it with: apt-get install -y chromium")
                }
                guard which("chromedriver") != nil else {
                    throw InteropFailure("chromedriver is missing; install it with: apt-get install -y chromium-driver")
                }
            case .firefox:
                guard which("firefox-esr") != nil || which("firefox") != nil else {
                    throw InteropFailure("firefox-esr is missing; install it with: apt-get install -y firefox-esr")
                }
                let probe = try await ChildProcess.run(
                    ProjectPython.path,
                    ["-c", "import marionette_driver"],
                    timeout: .seconds(30)
                )
                guard probe.status == 0 else { throw InteropFailure(ProjectPython.missing("marionette_driver")) }
            case .ffmpeg:
                guard which("ffmpeg") != nil else {
                    throw InteropFailure("ffmpeg is missing; install it with: apt-get install -y ffmpeg")
                }
            case .espeak:
                guard which("espeak-ng") != nil else {
                    throw InteropFailure("espeak-ng is missing; install it with: apt-get install -y espeak-ng")
                }
            case .coturn:
                guard which("turnserver") != nil else {
                    throw InteropFailure("turnserver (coturn) is missing; install it with: apt-get install -y coturn")
                }
            }
        }
    }
}

/// A failed interop step, with what to look at.
struct InteropFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A coturn on 127.0.0.1 with long-term credentials user:pass (realm swiftrtc), as
/// Interop/selfcheck.sh starts it.
final class TurnServer: @unchecked Sendable {
    let port: Int
    let child: ChildProcess
    let username = "user", credential = "pass"

    init(folder: URL) async throws {
        port = try Interop.freePort()
        child = try ChildProcess(
            name: "turnserver",
            executable: "turnserver",
            arguments: [
                "--allow-loopback-peers", "--no-cli", "-n", "-v",
                "--listening-ip", "127.0.0.1", "--relay-ip", "127.0.0.1", "--listening-port", "\(port)",
                "--no-tls", "--no-dtls", "--no-tcp-relay", "-a", "-u", "user:pass", "-r", "swiftrtc",
                "--userdb", folder.appendingPathComponent("turndb").path,
                "--pidfile", folder.appendingPathComponent("turnserver.pid").path,
                "--log-file", "stdout", "--simple-log",
            ],
            folder: folder
        )
        let deadline = ContinuousClock.now + .seconds(10)
        while !child.stdout.contains("Relay ports initialization done") {
            guard child.process.isRunning, ContinuousClock.now < deadline else {
                throw InteropFailure(
                    "turnserver did not start; its output:\n\(child.stdout.suffix(2000))\n\(child.stderrTail())"
                )
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The ICE flags for a relay-only side.
    var relayOnlyFlags: [String] {
        [
            "--ice-server", "turn:127.0.0.1:\(port)", "--ice-username", username, "--ice-credential", credential,
            "--relay-only",
        ]
    }

    /// Bytes coturn relayed to and from peers (it logs them when an allocation is released).
    var relayedBytes: Int {
        var total = 0
        for line in child.stdout.split(separator: "\n") where line.contains("peer usage:") {
            for key in ["rb=", "sb="] {
                guard let range = line.range(of: key) else { continue }
                total += Int(line[range.upperBound...].prefix(while: \.isNumber)) ?? 0
            }
        }
        return total
    }
}

/// The bot report fields the interop tests read (DESIGN.md, "Interop contract").
struct PeerReport: Decodable {
    struct Kind: Decodable {
        var rtp_packets_sent: Int?
        var rtp_packets_received: Int?
        var frames_decoded: Int?
        var width: Int?
        var height: Int?
        var rms: Double?
    }
    var peer: String?
    var role: String?
    var connected: Bool
    var ice_connected_ms: Double?
    var dtls_connected_ms: Double?
    var audio: Kind
    var video: Kind
    var errors: [String]
    var local_candidate_type: String?
    /// What DTLS negotiated, by IANA name (null where the peer cannot say: aiortc).
    var srtp_cipher: String?
    var dtls_cipher: String?

    static func load(_ url: URL) throws -> PeerReport {
        guard let data = try? Data(contentsOf: url) else { throw InteropFailure("no report at \(url.path)") }
        return try JSONDecoder().decode(PeerReport.self, from: data)
    }

    /// One line of figures for the test log.
    var summary: String {
        func n(_ v: Int?) -> String { v.map(String.init) ?? "null" }
        return
            "\(peer ?? "?") \(role ?? "?"): connected=\(connected) ice=\(ice_connected_ms.map { "\(Int($0))" } ?? "null")ms "
            + "dtls=\(dtls_connected_ms.map { "\(Int($0))" } ?? "null")ms pair=\(local_candidate_type ?? "?") | audio sent=\(n(audio.rtp_packets_sent)) "
            + "recv=\(n(audio.rtp_packets_received)) decoded=\(n(audio.frames_decoded)) rms=\(audio.rms.map { String(format: "%.4f", $0) } ?? "null") | "
            + "video sent=\(n(video.rtp_packets_sent)) recv=\(n(video.rtp_packets_received)) decoded=\(n(video.frames_decoded)) \(n(video.width))x\(n(video.height))"
    }
}
