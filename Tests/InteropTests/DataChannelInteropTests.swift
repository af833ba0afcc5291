import Foundation
import TestScheduling
import Testing

/// Data channels (RFC 8831/8832/8841) between callbot and real third-party peers over WHIP on
/// 127.0.0.1: aiortc 1.16, headless Chromium and headless Firefox ESR (Interop/*.py), in both
/// directions. `callbot whip --data-channel` dials each peer's `whip-server --echo-data`, and
/// each peer's `whip-client --data-channel` dials `callbot whip-server --echo-data`. Each
/// direction runs the same four variants: ordered and unordered, text and binary, 1 to 262144
/// bytes, three data-only connections (`m=application` alone) and one beside audio and video.
/// Both reports must show every message echoed back with nothing mismatched, `open_ms` known
/// and N × size bytes each way (Interop/README.md, "Data channels").
///
/// The peers' servers take all four sessions of a direction, so a browser starts once there.
/// The report of each session comes from its `SESSION {json}` line. A data-only client ends
/// once its echoes are back.
@Suite(.serialized, .realTime) struct DataChannelInteropTests {
    /// One `--data-channel` run.
    struct Variant: Sendable, CustomStringConvertible {
        var label: String
        var messages: Int
        var size: Int
        var binary = false
        var unordered = false
        var maxRetransmits: Int?
        /// Beside audio and video for `mediaSeconds`; otherwise data-only (`--no-audio --no-video`).
        var media = false

        /// The same for `callbot whip` and the peers' `whip-client`.
        var clientFlags: [String] {
            var flags = ["--data-channel", label, "--data-messages", "\(messages)", "--data-size", "\(size)"]
            if binary { flags.append("--data-binary") }
            if unordered { flags.append("--data-unordered") }
            if let maxRetransmits { flags += ["--data-max-retransmits", "\(maxRetransmits)"] }
            flags += media ? ["--duration", DataChannelInteropTests.mediaSeconds] : ["--no-audio", "--no-video"]
            return flags
        }

        var description: String {
            "\(label): \(messages) x \(size) B \(unordered ? "unordered" : "ordered") \(binary ? "binary" : "text")"
                + (maxRetransmits.map { " max-retransmits \($0)" } ?? "") + (media ? " beside media" : " data-only")
        }
    }

    static let mediaSeconds = "2"

    /// Ordered text, unordered binary, unordered partially reliable text and ordered binary;
    /// 1, 262144, 1000 and 16384 bytes; the last beside audio and video.
    static let variants = [
        Variant(label: "chat", messages: 100, size: 1),
        Variant(label: "bulk", messages: 4, size: 262_144, binary: true, unordered: true),
        Variant(label: "events", messages: 100, size: 1000, unordered: true, maxRetransmits: 2),
        Variant(label: "beside-media", messages: 20, size: 16_384, binary: true, media: true),
    ]

    enum Peer: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case aiortc, chromium, firefox

        var script: String {
            Interop.scripts.appendingPathComponent(self == .aiortc ? "aiortc_peer.py" : "browser_peer.py").path
        }
        var flags: [String] { self == .aiortc ? [] : ["--browser", rawValue] }
        var dependency: Interop.Dependency {
            switch self {
            case .aiortc: .aiortc
            case .chromium: .chromium
            case .firefox: .firefox
            }
        }
        /// How long its client may take, browser start-up included.
        var clientTimeout: Duration { self == .aiortc ? .seconds(60) : .seconds(120) }
        var testDescription: String { rawValue }
    }

    /// The report fields these tests read, `data_channels` among them.
    struct DataReport: Decodable {
        struct Row: Decodable {
            var label: String
            var messages_sent: Int
            var messages_received: Int
            var bytes_sent: Int
            var bytes_received: Int
            var echo_mismatches: Int
            var open_ms: Double?
            var echo_ms: Double?
        }
        var peer: String?
        var role: String?
        var connected: Bool
        var errors: [String]
        var audio: PeerReport.Kind
        var video: PeerReport.Kind
        var data_channels: [Row]?

        static func load(_ url: URL) throws -> DataReport {
            guard let data = try? Data(contentsOf: url) else { throw InteropFailure("no report at \(url.path)") }
            return try JSONDecoder().decode(DataReport.self, from: data)
        }

        func row(_ label: String) -> Row? { data_channels?.first { $0.label == label } }
    }

    /// `callbot whip --data-channel ...` → `<peer> whip-server --echo-data`, each variant a
    /// session of the same server.
    @Test(arguments: Peer.allCases)
    func callbotDialsPeer(_ peer: Peer) async throws {
        try await Interop.require(peer.dependency)
        let folder = try Interop.workFolder("data-offer-\(peer.rawValue)")
        let port = try Interop.freePort()
        let server = try ChildProcess(
            name: "peer-whip-server",
            executable: ProjectPython.path,
            arguments: [peer.script] + peer.flags + [
                "whip-server", "--port", "\(port)", "--duration", "150", "--echo-data", "--report",
                folder.appendingPathComponent("peer-last.json").path,
            ],
            folder: folder
        )
        defer { server.stop() }
        let url: String
        do {
            url = try await server.waitForLine(prefix: "READY ", timeout: .seconds(90))
        } catch {
            if !server.process.isRunning, server.process.terminationStatus == 2 {
                throw InteropFailure("\(peer) says a dependency is missing:\n\(server.stderrTail())")
            }
            throw error
        }
        for (index, variant) in Self.variants.enumerated() {
            let ours = folder.appendingPathComponent("callbot-\(variant.label).json")
            let theirs = folder.appendingPathComponent("peer-\(variant.label).json")
            let client = try ChildProcess(
                name: "callbot-whip-\(variant.label)",
                executable: Interop.callbot.path,
                arguments: ["whip", url, "--stats-interval", "1", "--report", ours.path] + variant.clientFlags,
                folder: folder
            )
            defer { client.stop() }
            let status = try await client.wait(timeout: .seconds(60))
            #expect(status == 0, "callbot whip (\(variant)) exited \(status); stderr:\n\(client.stderrTail())")
            // Our DELETE ended the session: the server printed its report.
            let session = try await Self.sessionReport(of: server, number: index + 1)
            try Data(session.utf8).write(to: theirs)
            try await Self.expectEchoed(variant, client: ours, server: theirs, pairing: "callbot -> \(peer)")
        }
        server.terminate()
        let status = try await server.wait(timeout: .seconds(30))
        #expect(status == 0, "\(peer) whip-server exited \(status); stderr:\n\(server.stderrTail())")
    }

    /// `<peer> whip-client --data-channel ...` → `callbot whip-server --echo-data`, one server
    /// per variant (its report is its last session's).
    @Test(arguments: Peer.allCases)
    func peerDialsCallbot(_ peer: Peer) async throws {
        try await Interop.require(peer.dependency)
        let folder = try Interop.workFolder("data-answer-\(peer.rawValue)")
        for variant in Self.variants {
            let ours = folder.appendingPathComponent("callbot-\(variant.label).json")
            let theirs = folder.appendingPathComponent("peer-\(variant.label).json")
            let server = try ChildProcess(
                name: "callbot-whip-server-\(variant.label)",
                executable: Interop.callbot.path,
                arguments: [
                    "whip-server", "--port", "0", "--duration", "150", "--stats-interval", "1", "--echo-data",
                    "--report", ours.path,
                ],
                folder: folder
            )
            defer { server.stop() }
            let url = try await server.waitForLine(prefix: "READY ", timeout: .seconds(60))
            let client = try ChildProcess(
                name: "peer-whip-client-\(variant.label)",
                executable: ProjectPython.path,
                arguments: [peer.script] + peer.flags + ["whip-client", url, "--report", theirs.path]
                    + variant.clientFlags,
                folder: folder
            )
            defer { client.stop() }
            let clientStatus = try await client.wait(timeout: peer.clientTimeout)
            if clientStatus == 2 {
                throw InteropFailure("\(peer) says a dependency is missing:\n\(client.stderrTail())")
            }
            // The client's DELETE ended our session; SIGTERM stops the server, which writes its report.
            server.terminate()
            let serverStatus = try await server.wait(timeout: .seconds(20))
            #expect(
                clientStatus == 0,
                "\(peer) whip-client (\(variant)) exited \(clientStatus); stderr:\n\(client.stderrTail())"
            )
            #expect(serverStatus == 0, "callbot whip-server exited \(serverStatus); stderr:\n\(server.stderrTail())")
            try await Self.expectEchoed(variant, client: theirs, server: ours, pairing: "\(peer) -> callbot")
        }
    }

    /// The `SESSION {json}` line the peer's server printed for its `number`th session.
    static func sessionReport(of server: ChildProcess, number: Int) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let lines = server.stdout.split(separator: "\n").filter { $0.hasPrefix("SESSION ") }
            if lines.count >= number { return String(lines[number - 1].dropFirst("SESSION ".count)) }
            guard server.process.isRunning, ContinuousClock.now < deadline else {
                throw InteropFailure(
                    "the peer's server printed \(lines.count) SESSION lines, not \(number); stderr:\n\(server.stderrTail())"
                )
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Both reports show the connection with no errors and the channel's row: the client sent
    /// N messages and got N echoes back, none mismatched, with N × size bytes each way; the
    /// server received N and echoed N. Beside media, audio and video were decoded on both ends
    /// too; data-only, no RTP was sent. Interop/check_report.py must agree.
    static func expectEchoed(_ variant: Variant, client: URL, server: URL, pairing: String) async throws {
        var arguments = [Interop.scripts.appendingPathComponent("check_report.py").path]
        for url in [client, server] {
            if !variant.media { arguments.append("--no-media") }
            arguments += [
                "--data-channel", variant.label, "--expect-messages", "\(variant.messages)", "--expect-size",
                "\(variant.size)", url.path,
            ]
        }
        let check = try await ChildProcess.run(ProjectPython.path, arguments, timeout: .seconds(30))
        #expect(check.status == 0, "\(pairing) \(variant): check_report.py:\n\(check.stdout)\(check.stderr)")

        let sender = try DataReport.load(client), echoer = try DataReport.load(server)
        let bytes = variant.messages * variant.size
        for report in [sender, echoer] {
            let who = "\(pairing) \(variant): \(report.peer ?? "?") \(report.role ?? "?")"
            #expect(report.connected, "\(who) did not connect")
            #expect(report.errors.isEmpty, "\(who): \(report.errors)")
            if variant.media {
                #expect((report.audio.frames_decoded ?? 0) > 0, "\(who): no audio decoded")
                #expect((report.video.frames_decoded ?? 0) > 0, "\(who): no video decoded")
            } else {
                #expect((report.audio.rtp_packets_sent ?? 0) == 0, "\(who): audio sent on a data-only connection")
                #expect((report.video.rtp_packets_sent ?? 0) == 0, "\(who): video sent on a data-only connection")
            }
        }
        let sent = try #require(sender.row(variant.label), "\(pairing) \(variant): no row in \(client.path)")
        let echoed = try #require(echoer.row(variant.label), "\(pairing) \(variant): no row in \(server.path)")
        #expect(sent.messages_sent == variant.messages, "\(pairing) \(variant): sent \(sent.messages_sent)")
        #expect(sent.messages_received == variant.messages, "\(pairing) \(variant): \(sent.messages_received) echoes")
        #expect(sent.bytes_sent == bytes && sent.bytes_received == bytes, "\(pairing) \(variant): \(sent)")
        #expect(sent.echo_mismatches == 0, "\(pairing) \(variant): \(sent.echo_mismatches) mismatched echoes")
        #expect(sent.open_ms != nil && sent.echo_ms != nil, "\(pairing) \(variant): \(sent)")
        #expect(echoed.messages_received == variant.messages, "\(pairing) \(variant): \(echoed)")
        #expect(echoed.messages_sent == variant.messages, "\(pairing) \(variant): echoed \(echoed.messages_sent)")
        #expect(echoed.bytes_received == bytes && echoed.bytes_sent == bytes, "\(pairing) \(variant): \(echoed)")
        #expect(echoed.echo_mismatches == 0 && echoed.open_ms != nil, "\(pairing) \(variant): \(echoed)")
        func ms(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "null" }
        print(
            "\(pairing) \(variant): open \(ms(sent.open_ms)) ms (announced after \(ms(echoed.open_ms)) ms), "
                + "echo median \(ms(sent.echo_ms)) ms, \(sent.messages_received)/\(variant.messages) back"
        )
    }
}
