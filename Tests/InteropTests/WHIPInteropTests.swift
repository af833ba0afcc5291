import Foundation
import TestScheduling
import Testing

/// callbot against real third-party WebRTC peers over WHIP on 127.0.0.1, in both roles:
/// aiortc 1.16, headless Chromium and headless Firefox ESR (Interop/*.py), and relay-only
/// through a real coturn (with aiortc, and with Firefox). Each call runs about 5 s of audio and video; both bot reports (ours from
/// `--report`, the peer's) must show audio and video sent, received and decoded.
/// A missing peer or tool fails the test naming what to install.
@Suite(.serialized, .realTime) struct WHIPInteropTests {
    static let mediaSeconds = "5"

    /// We answer: `callbot whip-server` ← `<peer> whip-client`.
    static func weAnswer(
        peer script: String,
        folder: URL,
        ourFlags: [String] = [],
        theirFlags: [String] = [],
        clientTimeout: Duration = .seconds(90)
    ) async throws -> (ours: URL, theirs: URL) {
        let ours = folder.appendingPathComponent("callbot.json"), theirs = folder.appendingPathComponent("peer.json")
        let port = try Interop.freePort()
        let server = try ChildProcess(
            name: "callbot-whip-server",
            executable: Interop.callbot.path,
            arguments: [
                "whip-server", "--port", "\(port)", "--duration", "120", "--stats-interval", "2", "--report", ours.path,
            ] + ourFlags,
            folder: folder
        )
        defer { server.stop() }
        let url = try await server.waitForLine(prefix: "READY ", timeout: .seconds(60))
        #expect(url == "http://127.0.0.1:\(port)/whip")
        let client = try ChildProcess(
            name: "peer-whip-client",
            executable: ProjectPython.path,
            arguments: [
                Interop.scripts.appendingPathComponent(script).path, "whip-client", url,
                "--duration", mediaSeconds, "--report", theirs.path,
            ] + theirFlags,
            folder: folder
        )
        defer { client.stop() }
        let clientStatus = try await client.wait(timeout: clientTimeout)
        if clientStatus == 2 { throw InteropFailure("\(script) says a dependency is missing:\n\(client.stderrTail())") }
        // The client's DELETE ended our session; SIGTERM stops the server, which writes its report.
        server.terminate()
        let serverStatus = try await server.wait(timeout: .seconds(20))
        #expect(clientStatus == 0, "\(script) whip-client exited \(clientStatus); stderr:\n\(client.stderrTail())")
        #expect(serverStatus == 0, "callbot whip-server exited \(serverStatus); stderr:\n\(server.stderrTail())")
        #expect(server.stdout.contains("CN "), "callbot whip-server printed no statsString")
        return (ours, theirs)
    }

    /// We offer: `callbot whip` → `<peer> whip-server --once`.
    static func weOffer(
        peer script: String,
        folder: URL,
        ourFlags: [String] = [],
        theirFlags: [String] = [],
        readyTimeout: Duration = .seconds(90)
    ) async throws -> (ours: URL, theirs: URL) {
        let ours = folder.appendingPathComponent("callbot.json"), theirs = folder.appendingPathComponent("peer.json")
        let port = try Interop.freePort()
        let server = try ChildProcess(
            name: "peer-whip-server",
            executable: ProjectPython.path,
            arguments: [
                Interop.scripts.appendingPathComponent(script).path, "whip-server", "--port", "\(port)", "--once",
                "--duration", "120", "--report", theirs.path,
            ] + theirFlags,
            folder: folder
        )
        defer { server.stop() }
        let url: String
        do {
            url = try await server.waitForLine(prefix: "READY ", timeout: readyTimeout)
        } catch {
            if !server.process.isRunning, server.process.terminationStatus == 2 {
                throw InteropFailure("\(script) says a dependency is missing:\n\(server.stderrTail())")
            }
            throw error
        }
        let client = try ChildProcess(
            name: "callbot-whip",
            executable: Interop.callbot.path,
            arguments: [
                "whip", url, "--duration", mediaSeconds, "--stats-interval", "2", "--report", ours.path,
            ] + ourFlags,
            folder: folder
        )
        defer { client.stop() }
        let clientStatus = try await client.wait(timeout: .seconds(60))
        // Our DELETE ends the --once server, which then writes its report.
        let serverStatus = try await server.wait(timeout: .seconds(30))
        #expect(clientStatus == 0, "callbot whip exited \(clientStatus); stderr:\n\(client.stderrTail())")
        #expect(serverStatus == 0, "\(script) whip-server exited \(serverStatus); stderr:\n\(server.stderrTail())")
        #expect(client.stdout.contains("CN "), "callbot whip printed no statsString")
        return (ours, theirs)
    }

    /// Both reports show a connected call with audio and video sent, received and decoded
    /// (Interop/check_report.py, plus the same facts asserted here); `relay` reports must
    /// show a relay candidate on their side of the selected pair.
    static func expectDecodedOnBothEnds(
        _ reports: (ours: URL, theirs: URL),
        oursRelay: Bool = false,
        theirsRelay: Bool = false
    ) async throws {
        var arguments = [Interop.scripts.appendingPathComponent("check_report.py").path]
        if oursRelay { arguments.append("--relay") }
        arguments.append(reports.ours.path)
        if theirsRelay { arguments.append("--relay") }
        arguments.append(reports.theirs.path)
        let check = try await ChildProcess.run(ProjectPython.path, arguments, timeout: .seconds(30))
        print(check.stdout, terminator: "")
        #expect(check.status == 0, "check_report.py:\n\(check.stdout)\(check.stderr)")
        for url in [reports.ours, reports.theirs] {
            let report = try PeerReport.load(url)
            #expect(report.connected, "\(report.summary)")
            #expect(report.errors.isEmpty, "\(report.errors)")
            for kind in [report.audio, report.video] {
                #expect((kind.rtp_packets_sent ?? 0) > 0, "\(report.summary)")
                #expect((kind.rtp_packets_received ?? 0) > 0, "\(report.summary)")
                #expect((kind.frames_decoded ?? 0) > 0, "\(report.summary)")
            }
            #expect((report.video.width ?? 0) > 0 && (report.video.height ?? 0) > 0, "\(report.summary)")
            #expect((report.audio.rms ?? 0) > 0, "\(report.summary)")
            #expect(report.ice_connected_ms != nil && report.dtls_connected_ms != nil, "\(report.summary)")
        }
        let ours = try PeerReport.load(reports.ours), theirs = try PeerReport.load(reports.theirs)
        #expect(ours.peer == "callbot")
        // Both ends name the same negotiated profile and cipher suite where the peer can say.
        #expect(ours.srtp_cipher?.hasPrefix("SRTP_") == true, "srtp_cipher \(ours.srtp_cipher ?? "null")")
        #expect(ours.dtls_cipher?.hasPrefix("TLS_") == true, "dtls_cipher \(ours.dtls_cipher ?? "null")")
        if let cipher = theirs.srtp_cipher { #expect(cipher == ours.srtp_cipher) }
        if let cipher = theirs.dtls_cipher { #expect(cipher == ours.dtls_cipher) }
    }

    /// Both sides ours: `callbot whip-server` ← `callbot whip`, echo on the server.
    @Test func callbotAnswersCallbot() async throws {
        try await Interop.require()
        let folder = try Interop.workFolder("callbot-callbot")
        let serverReport = folder.appendingPathComponent("server.json"),
            clientReport = folder.appendingPathComponent("client.json")
        let server = try ChildProcess(
            name: "callbot-whip-server",
            executable: Interop.callbot.path,
            arguments: [
                "whip-server", "--port", "0", "--duration", "60", "--stats-interval", "1", "--report",
                serverReport.path,
                "--record", try Self.subfolder(folder, "echo").path,
            ],
            folder: folder
        )
        defer { server.stop() }
        let url = try await server.waitForLine(prefix: "READY ", timeout: .seconds(60))
        let client = try ChildProcess(
            name: "callbot-whip",
            executable: Interop.callbot.path,
            arguments: [
                "whip", url, "--duration", "3", "--stats-interval", "1", "--report", clientReport.path,
            ],
            folder: folder
        )
        defer { client.stop() }
        let clientStatus = try await client.wait(timeout: .seconds(60))
        server.terminate()
        let serverStatus = try await server.wait(timeout: .seconds(20))
        #expect(clientStatus == 0, "callbot whip exited \(clientStatus); stderr:\n\(client.stderrTail())")
        #expect(serverStatus == 0, "callbot whip-server exited \(serverStatus); stderr:\n\(server.stderrTail())")
        #expect(client.stdout.contains("CN "), "no statsString from the client:\n\(client.stdout)")
        #expect(server.stdout.contains("CN "), "no statsString from the server:\n\(server.stdout)")
        try await Self.expectDecodedOnBothEnds((serverReport, clientReport))
        let report = try PeerReport.load(serverReport)
        #expect(report.role == "whip-server")
        try Self.expectWebM(try Self.recording(in: folder.appendingPathComponent("echo")), minimumBytes: 30_000)
    }

    /// Also records what aiortc sent (`--record`): a WebM with its VP8 and Opus frames.
    /// Without --duration, `callbot whip` runs until SIGTERM, then still DELETEs its session
    /// and writes its report.
    @Test func callbotWhipEndsOnSIGTERMWithDelete() async throws {
        try await Interop.require()
        let folder = try Interop.workFolder("sigterm")
        let clientReport = folder.appendingPathComponent("client.json")
        let server = try ChildProcess(
            name: "callbot-whip-server",
            executable: Interop.callbot.path,
            arguments: [
                "whip-server", "--port", "0", "--duration", "60",
            ],
            folder: folder
        )
        defer { server.stop() }
        let url = try await server.waitForLine(prefix: "READY ", timeout: .seconds(60))
        let client = try ChildProcess(
            name: "callbot-whip",
            executable: Interop.callbot.path,
            arguments: [
                "whip", url, "--stats-interval", "1", "--report", clientReport.path,
            ],
            folder: folder
        )
        defer { client.stop() }
        // The first statsString line comes a second after the start; let media flow a little.
        _ = try await client.waitForLine(prefix: "CN ", timeout: .seconds(30))
        try await Task.sleep(for: .seconds(1))
        client.terminate()
        let status = try await client.wait(timeout: .seconds(20))
        #expect(status == 0, "callbot whip exited \(status); stderr:\n\(client.stderrTail())")
        let report = try PeerReport.load(clientReport)
        #expect(report.connected && report.errors.isEmpty, "\(report.summary) \(report.errors)")
        #expect((report.video.frames_decoded ?? 0) > 0 && (report.audio.frames_decoded ?? 0) > 0, "\(report.summary)")
        // The DELETE reached the server, which ended the session.
        let deadline = ContinuousClock.now + .seconds(10)
        while !server.stderr.contains("session 1 ended"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(server.stderr.contains("session 1 ended: connected=true"), "server stderr:\n\(server.stderrTail())")
    }

    /// `--audio FILE` and `--video FILE` with each file kind: WAV + Y4M (raw, encoded by us) and
    /// Ogg Opus + IVF (passed through as encoded), made by ffmpeg: a 1/8-amplitude 440 Hz sine
    /// (RMS 0.088, the tone source's is 0.177) and a 320x240 picture (the pattern's is 640x480),
    /// so the echoing server's report shows the files were sent.
    @Test(arguments: [("wav", "y4m"), ("ogg", "ivf")])
    func callbotSendsFiles(audio: String, video: String) async throws {
        try await Interop.require(.ffmpeg)
        let folder = try Interop.workFolder("files-\(audio)-\(video)")
        let audioFile = folder.appendingPathComponent("sine.\(audio)"),
            videoFile = folder.appendingPathComponent("picture.\(video)")
        let audioCodec = audio == "ogg" ? ["-c:a", "libopus", "-b:a", "48k"] : ["-ar", "48000"]
        let videoCodec = video == "ivf" ? ["-c:v", "libvpx", "-b:v", "300k", "-g", "30"] : ["-pix_fmt", "yuv420p"]
        for arguments in [
            ["-f", "lavfi", "-i", "sine=frequency=440:duration=6:sample_rate=48000"] + audioCodec + [audioFile.path],
            ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=15:duration=6"] + videoCodec + [videoFile.path],
        ] {
            let made = try await ChildProcess.run(
                "ffmpeg",
                ["-y", "-loglevel", "error"] + arguments,
                timeout: .seconds(60)
            )
            #expect(made.status == 0, "ffmpeg \(arguments): \(made.stderr)")
        }
        let serverReport = folder.appendingPathComponent("server.json"),
            clientReport = folder.appendingPathComponent("client.json")
        let server = try ChildProcess(
            name: "callbot-whip-server",
            executable: Interop.callbot.path,
            arguments: [
                "whip-server", "--port", "0", "--duration", "60", "--report", serverReport.path,
            ],
            folder: folder
        )
        defer { server.stop() }
        let url = try await server.waitForLine(prefix: "READY ", timeout: .seconds(60))
        let client = try ChildProcess(
            name: "callbot-whip",
            executable: Interop.callbot.path,
            arguments: [
                "whip", url, "--duration", "3", "--audio", audioFile.path, "--video", videoFile.path, "--report",
                clientReport.path,
            ],
            folder: folder
        )
        defer { client.stop() }
        let clientStatus = try await client.wait(timeout: .seconds(60))
        server.terminate()
        let serverStatus = try await server.wait(timeout: .seconds(20))
        #expect(clientStatus == 0, "callbot whip exited \(clientStatus); stderr:\n\(client.stderrTail())")
        #expect(serverStatus == 0, "callbot whip-server exited \(serverStatus); stderr:\n\(server.stderrTail())")
        try await Self.expectDecodedOnBothEnds((serverReport, clientReport))
        let received = try PeerReport.load(serverReport)
        print(received.summary)
        #expect(received.video.width == 320 && received.video.height == 240, "\(received.summary)")
        #expect(abs((received.audio.rms ?? 0) - 0.088) < 0.03, "\(received.summary)")
        // 3 s of 15 fps: nearly every frame decodes, also when passed through from the IVF
        // (whose only keyframes are the file's own, so sending starts once connected).
        #expect((received.video.frames_decoded ?? 0) >= 30, "\(received.summary)")
    }

    /// `whip-server --record --trim-silence`: the client sends 1.5 s of silence, real speech
    /// (espeak-ng) and silence again; the recording keeps the speech and leaves out most of
    /// the silence around it.
    @Test func recordingTrimsSilence() async throws {
        try await Interop.require(.ffmpeg, .espeak)
        let folder = try Interop.workFolder("trim-silence")
        let speech = folder.appendingPathComponent("speech.wav"), call = folder.appendingPathComponent("call.wav")
        let spoken = try await ChildProcess.run(
            "espeak-ng",
            ["-w", speech.path, "Hello, this is the recording bot speaking."],
            timeout: .seconds(30)
        )
        #expect(spoken.status == 0, "espeak-ng: \(spoken.stderr)")
        let padded = try await ChildProcess.run(
            "ffmpeg",
            [
                "-y", "-loglevel", "error", "-i", speech.path,
                "-af", "adelay=1500,apad=pad_dur=4", "-ar", "48000", call.path,
            ],
            timeout: .seconds(60)
        )
        #expect(padded.status == 0, "ffmpeg: \(padded.stderr)")
        let recordings = try Self.subfolder(folder, "trimmed"),
            clientReport = folder.appendingPathComponent("client.json")
        let server = try ChildProcess(
            name: "callbot-whip-server",
            executable: Interop.callbot.path,
            arguments: [
                "whip-server", "--port", "0", "--duration", "60", "--no-video", "--record", recordings.path,
                "--trim-silence",
            ],
            folder: folder
        )
        defer { server.stop() }
        let url = try await server.waitForLine(prefix: "READY ", timeout: .seconds(60))
        let client = try ChildProcess(
            name: "callbot-whip",
            executable: Interop.callbot.path,
            arguments: [
                "whip", url, "--duration", "6", "--no-video", "--audio", call.path, "--report", clientReport.path,
            ],
            folder: folder
        )
        defer { client.stop() }
        #expect(try await client.wait(timeout: .seconds(60)) == 0, "callbot whip: \(client.stderrTail())")
        server.terminate()
        #expect(try await server.wait(timeout: .seconds(20)) == 0, "callbot whip-server: \(server.stderrTail())")

        let recording = try Self.recording(in: recordings)
        let sent = Double(try PeerReport.load(clientReport).audio.rtp_packets_sent ?? 0) * 0.020
        let probe = try await ChildProcess.run(
            "ffprobe",
            ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", recording.path],
            timeout: .seconds(30)
        )
        let recorded = try #require(
            Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)),
            "ffprobe: \(probe.stdout) \(probe.stderr)"
        )
        let spokenSeconds = try #require(
            Double(
                try await ChildProcess.run(
                    "ffprobe",
                    ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", speech.path],
                    timeout: .seconds(30)
                ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            )
        )
        print("trim: sent \(sent) s, speech \(spokenSeconds) s, recorded \(recorded) s")
        #expect(sent > 4.5, "the client sent \(sent) s")
        // The speech stays (with the recorder's short pre- and post-roll); the silence goes.
        #expect(
            recorded > spokenSeconds - 0.5 && recorded < spokenSeconds + 1.0,
            "recorded \(recorded) s of \(sent) s sent, speech \(spokenSeconds) s"
        )
    }

    @Test func callbotAnswersAiortc() async throws {
        try await Interop.require(.aiortc)
        let folder = try Interop.workFolder("answer-aiortc")
        let recordings = try Self.subfolder(folder, "received")
        let reports = try await Self.weAnswer(
            peer: "aiortc_peer.py",
            folder: folder,
            ourFlags: ["--record", recordings.path]
        )
        try await Self.expectDecodedOnBothEnds(reports)
        try Self.expectWebM(try Self.recording(in: recordings), minimumBytes: 50_000)
    }

    /// A WebM file (EBML header, doctype webm) with a VP8 and an Opus track and some media.
    /// A new folder `name` in `folder`, for `whip-server --record DIR`.
    static func subfolder(_ folder: URL, _ name: String) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The one session recording `whip-server --record DIR` wrote in `folder` (`whip-...webm`).
    static func recording(in folder: URL) throws -> URL {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasPrefix("whip-") && $0.hasSuffix(".webm")
        }
        try #require(names.count == 1, "recordings in \(folder.path): \(names)")
        return folder.appendingPathComponent(names[0])
    }

    static func expectWebM(_ url: URL, minimumBytes: Int) throws {
        let data = try Data(contentsOf: url)
        #expect(data.count >= minimumBytes, "\(url.lastPathComponent) has \(data.count) bytes")
        #expect(data.prefix(4) == Data([0x1A, 0x45, 0xDF, 0xA3]), "no EBML header")
        for marker in ["webm", "V_VP8", "A_OPUS"] {
            #expect(data.range(of: Data(marker.utf8)) != nil, "no \(marker) in \(url.lastPathComponent)")
        }
    }

    @Test func callbotOffersToAiortc() async throws {
        try await Interop.require(.aiortc)
        let folder = try Interop.workFolder("offer-aiortc")
        let reports = try await Self.weOffer(peer: "aiortc_peer.py", folder: folder, readyTimeout: .seconds(60))
        try await Self.expectDecodedOnBothEnds(reports)
    }

    @Test func callbotAnswersChromium() async throws {
        try await Interop.require(.chromium)
        let folder = try Interop.workFolder("answer-chromium")
        let reports = try await Self.weAnswer(peer: "browser_peer.py", folder: folder, clientTimeout: .seconds(150))
        try await Self.expectDecodedOnBothEnds(reports)
    }

    @Test func callbotOffersToChromium() async throws {
        try await Interop.require(.chromium)
        let folder = try Interop.workFolder("offer-chromium")
        let reports = try await Self.weOffer(peer: "browser_peer.py", folder: folder)
        try await Self.expectDecodedOnBothEnds(reports)
    }

    /// A page on another origin publishes to `whip-server` with `fetch` (CORS): the preflight
    /// is answered without the bearer token, the POST carries it, the page reads `Location`
    /// and DELETEs it.
    @Test func aPageOnAnotherOriginPublishes() async throws {
        try await Interop.require(.chromium)
        let folder = try Interop.workFolder("cross-origin-chromium")
        let token = "whip-token-0123456789abcdef"
        let reports = try await Self.weAnswer(
            peer: "browser_peer.py",
            folder: folder,
            ourFlags: ["--token", token],
            theirFlags: ["--in-page", "--token", token],
            clientTimeout: .seconds(150)
        )
        try await Self.expectDecodedOnBothEnds(reports)
    }

    @Test func callbotAnswersFirefox() async throws {
        try await Interop.require(.firefox)
        let folder = try Interop.workFolder("answer-firefox")
        let reports = try await Self.weAnswer(
            peer: "browser_peer.py",
            folder: folder,
            theirFlags: ["--browser", "firefox"],
            clientTimeout: .seconds(150)
        )
        try await Self.expectDecodedOnBothEnds(reports)
    }

    @Test func callbotOffersToFirefox() async throws {
        try await Interop.require(.firefox)
        let folder = try Interop.workFolder("offer-firefox")
        let reports = try await Self.weOffer(
            peer: "browser_peer.py",
            folder: folder,
            theirFlags: ["--browser", "firefox"]
        )
        try await Self.expectDecodedOnBothEnds(reports)
    }

    /// Both sides relay-only through a coturn the test starts, in both directions: Firefox
    /// dials `callbot whip-server`, and `callbot whip` dials Firefox.
    @Test(arguments: [false, true])
    func relayOnlyThroughCoturnWithFirefox(callbotDials: Bool) async throws {
        try await Interop.require(.firefox, .coturn)
        let folder = try Interop.workFolder("turn-firefox-\(callbotDials ? "offer" : "answer")")
        let turn = try await TurnServer(folder: folder)
        defer { turn.child.stop() }
        let firefox = ["--browser", "firefox"] + turn.relayOnlyFlags
        let reports =
            callbotDials
            ? try await Self.weOffer(
                peer: "browser_peer.py",
                folder: folder,
                ourFlags: turn.relayOnlyFlags,
                theirFlags: firefox
            )
            : try await Self.weAnswer(
                peer: "browser_peer.py",
                folder: folder,
                ourFlags: turn.relayOnlyFlags,
                theirFlags: firefox,
                clientTimeout: .seconds(150)
            )
        try await Self.expectDecodedOnBothEnds(reports, oursRelay: true, theirsRelay: true)
        try await Task.sleep(for: .seconds(1))
        #expect(turn.relayedBytes > 200_000, "coturn relayed only \(turn.relayedBytes) bytes")
        print("coturn relayed \(turn.relayedBytes) bytes (Firefox, callbot \(callbotDials ? "dials" : "answers"))")
        await turn.child.end()
    }

    /// Both sides relay-only through a coturn the test starts: callbot whip → aiortc whip-server.
    @Test func relayOnlyThroughCoturnWithAiortc() async throws {
        try await Interop.require(.aiortc, .coturn)
        let folder = try Interop.workFolder("turn-aiortc")
        let turn = try await TurnServer(folder: folder)
        defer { turn.child.stop() }
        let reports = try await Self.weOffer(
            peer: "aiortc_peer.py",
            folder: folder,
            ourFlags: turn.relayOnlyFlags,
            theirFlags: turn.relayOnlyFlags,
            readyTimeout: .seconds(60)
        )
        try await Self.expectDecodedOnBothEnds(reports, oursRelay: true, theirsRelay: true)
        // coturn logs what it relayed once the allocations are released.
        try await Task.sleep(for: .seconds(1))
        #expect(turn.relayedBytes > 200_000, "coturn relayed only \(turn.relayedBytes) bytes")
        print("coturn relayed \(turn.relayedBytes) bytes")
        await turn.child.end()
    }
}
