import Foundation
import TestScheduling
import Testing

/// The web client that `callbot serve` serves at `/`, driven in real headless browsers
/// (Interop/web_client_user.py: Chromium through chromedriver, Firefox ESR through Marionette)
/// against `callbot` bots on the same server: calls both ways, reject, no answer, a
/// three-party mesh of a bot, a Chromium user and a Firefox user, and mute notices both ways.
/// Each test writes a screenshot of the page in the call into its work folder.
@Suite(.serialized, .realTime) struct WebClientTests {
    static let tokens = [
        "alice": "alice-token-0123456789", "bob": "bob-token-0123456789", "carol": "carol-token-0123456789",
    ]

    /// Passwords of the users file (``serve(_:passwords:)``): each user's token is their password.
    static func password(_ user: String) -> String { tokens[user] ?? "" }

    /// `callbot serve` with alice, bob and carol: with their tokens, or (`passwords`) a users
    /// file of PBKDF2 hashes (written by `callbot serve --hash-password`) with each token as
    /// that user's password; its web page URL and WebSocket URL.
    static func serve(
        _ folder: URL,
        passwords: Bool = false
    ) async throws -> (server: ChildProcess, page: String, signaling: String) {
        let file = folder.appendingPathComponent(passwords ? "users.txt" : "tokens.txt")
        var lines = ""
        for (user, token) in tokens.sorted(by: { $0.key < $1.key }) {
            if passwords {
                let hashed = try await ChildProcess.run(
                    "/bin/sh",
                    [
                        "-c", "printf '%s\\n' \"$1\" | \"$2\" serve --hash-password \"$3\"", "sh",
                        password(user), Interop.callbot.path, user,
                    ],
                    timeout: .seconds(60)
                )
                #expect(hashed.status == 0, "--hash-password: \(hashed.stderr)")
                lines += hashed.stdout
            } else {
                lines += "\(user):\(token)\n"
            }
        }
        try lines.write(to: file, atomically: true, encoding: .utf8)
        let server = try ChildProcess(
            name: "serve",
            executable: Interop.callbot.path,
            arguments: [
                "serve", "--port", "0", passwords ? "--users" : "--tokens", file.path,
            ],
            folder: folder
        )
        let signaling = try await server.waitForLine(prefix: "READY ", timeout: .seconds(60))
        let page = signaling.replacingOccurrences(of: "ws://", with: "http://").replacingOccurrences(
            of: "/signaling",
            with: "/"
        )
        return (server, page, signaling)
    }

    /// A person in `browser` on the page: `web_client_user.py BROWSER PAGE --token T ...`; with
    /// `password`, logging in with the user and password fields.
    static func person(
        _ browser: String,
        _ user: String,
        page: String,
        folder: URL,
        password: Bool = false,
        _ arguments: [String]
    ) throws -> ChildProcess {
        try ChildProcess(
            name: "\(browser)-\(user)",
            executable: ProjectPython.path,
            arguments: [
                Interop.scripts.appendingPathComponent("web_client_user.py").path, browser, page, "--token",
                tokens[user] ?? "",
            ] + (password ? ["--user", user] : []) + [
                "--report", folder.appendingPathComponent("\(browser)-\(user).json").path,
            ] + arguments,
            folder: folder
        )
    }

    /// A bot: `callbot answer` or `callbot call USERS` as `user` (with `password`: logging in
    /// as USER:PASSWORD), with `stdin` as its standard input (its `--chat` lines).
    static func bot(
        _ user: String,
        signaling: String,
        folder: URL,
        password: Bool = false,
        stdin: String? = nil,
        _ arguments: [String]
    ) throws -> ChildProcess {
        let input = stdin.map { _ in folder.appendingPathComponent("bot-\(user).stdin") }
        if let stdin, let input { try Data(stdin.utf8).write(to: input) }
        return try ChildProcess(
            name: "bot-\(user)",
            executable: Interop.callbot.path,
            arguments: arguments + [
                "--server", signaling, "--token", password ? "\(user):\(Self.password(user))" : tokens[user] ?? "",
            ],
            folder: folder,
            stdin: input
        )
    }

    /// The page's report (the `REPORT` line), after the script ended with `status`.
    static func pageReport(_ person: ChildProcess, status: Int32) throws -> PageReport {
        if status == 2 {
            throw InteropFailure("web_client_user.py says a dependency is missing:\n\(person.stderrTail())")
        }
        let line = try #require(
            person.stdout.split(separator: "\n").last { $0.hasPrefix("REPORT ") },
            "no REPORT from \(person.name); stderr:\n\(person.stderrTail())"
        )
        let report = try JSONDecoder().decode(PageReport.self, from: Data(line.dropFirst("REPORT ".count).utf8))
        #expect(
            status == 0 && report.errors.isEmpty,
            "\(person.name) exited \(status): \(report.errors)\n\(person.stderrTail())"
        )
        return report
    }

    /// The bot's report (`--report`).
    static func botReport(_ url: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any], "\(url.path)")
    }

    /// `callbot log --json` of `user`: the newest record's result and users.
    static func newestLogRecord(of user: String, signaling: String) async throws -> [String: Any] {
        let log = try await ChildProcess.run(
            Interop.callbot.path,
            ["log", "--server", signaling, "--token", tokens[user] ?? "", "--json"],
            timeout: .seconds(30)
        )
        #expect(log.status == 0, "callbot log: \(log.stderr)")
        let records = try #require(
            JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]],
            "\(log.stdout)"
        )
        return try #require(records.first, "no call in \(user)'s log")
    }

    static func expectScreenshot(_ url: URL) throws {
        let data = try Data(contentsOf: url)
        #expect(
            data.count > 10_000 && data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            "\(url.path): \(data.count) bytes"
        )
    }

    /// A browser user calls a bot: both decode audio and video, the page sets a custom item and
    /// mutes (the bot sees both) and so does the bot (the page shows the notice), each sends a
    /// chat line the other shows (the page in its chat box, with the bot's display name), the
    /// browser hangs up, and both call logs show the call completed.
    @Test(arguments: ["chromium", "firefox"])
    func browserCallsBot(browser: String) async throws {
        try await Interop.require(browser == "chromium" ? .chromium : .firefox)
        let folder = try Interop.workFolder("web-\(browser)-calls-bot")
        let (server, page, signaling) = try await Self.serve(folder)
        defer { server.stop() }
        let botReport = folder.appendingPathComponent("bot.json"),
            screenshot = folder.appendingPathComponent("\(browser)-in-call.png")
        let bob = try Self.bot(
            "bob",
            signaling: signaling,
            folder: folder,
            stdin: "hello from the bot\n",
            [
                "answer", "--stats-interval", "1", "--report", botReport.path, "--mute-after", "5", "--user-info",
                "name=Bob the bot", "--chat",
            ]
        )
        defer { bob.stop() }
        _ = try await bob.waitForLine(prefix: "READY ", timeout: .seconds(30))
        let alice = try Self.person(
            browser,
            "alice",
            page: page,
            folder: folder,
            [
                "--call", "bob", "--user-info", "name=Alice", "--item", "topic=web", "--chat",
                "hello from alice in \(browser)", "--mute-after", "3", "--hang-up-after", "9",
                "--screenshot", screenshot.path,
            ]
        )
        defer { alice.stop() }
        let report = try Self.pageReport(alice, status: try await alice.wait(timeout: .seconds(150)))
        let botStatus = try await bob.wait(timeout: .seconds(30))
        #expect(botStatus == 0, "bob exited \(botStatus):\n\(bob.stdout)\n\(bob.stderrTail())")

        // The page: connected, decoded the bot's audio and video, saw its accept and mute.
        let fromBot = try #require(report.stats["bob"], "no stats of bob: \(report.stats.keys)")
        print(
            "web client \(browser) calls bot: connected after \(report.connected_s ?? -1) s; page decoded \(fromBot.video.framesDecoded) video frames "
                + "(\(fromBot.video.frameWidth)x\(fromBot.video.frameHeight)), \(fromBot.audio.packetsReceived) audio packets, energy \(fromBot.audio.totalAudioEnergy)"
        )
        #expect(report.record?.result == "completed")
        #expect(
            fromBot.video.framesDecoded > 60 && fromBot.video.frameWidth == 640 && fromBot.video.frameHeight == 480,
            "\(fromBot.video)"
        )
        #expect(fromBot.audio.packetsReceived > 200 && fromBot.audio.totalAudioEnergy > 0, "\(fromBot.audio)")
        #expect(
            report.has("accepted") { $0.user == "bob" && $0.userInfo?["name"] == "Bob the bot" },
            "\(report.eventNames)"
        )
        #expect(report.has("mediaSettings") { $0.user == "bob" && $0.audioEnabled == false }, "\(report.eventNames)")
        #expect(report.call_log.first?.contains("completed") == true, "\(report.call_log)")

        // The bot: decoded the browser's audio and video, saw the page's mute.
        let bot = try Self.botReport(botReport)
        let audio = bot["audio"] as? [String: Any] ?? [:], video = bot["video"] as? [String: Any] ?? [:]
        print(
            "web client \(browser) calls bot: bot decoded \(video["frames_decoded"] ?? "-") video frames (\(video["width"] ?? "-")x\(video["height"] ?? "-")), "
                + "\(audio["frames_decoded"] ?? "-") audio frames, rms \(audio["rms"] ?? "-")"
        )
        #expect(bot["call_result"] as? String == "completed" && bot["connected"] as? Bool == true, "\(bot)")
        #expect((video["frames_decoded"] as? Int ?? 0) > 60 && (audio["frames_decoded"] as? Int ?? 0) > 200, "\(bot)")
        #expect((audio["rms"] as? Double ?? 0) > 0.001, "\(bot)")
        #expect(bob.stdout.contains("answer: call ") && bob.stdout.contains("{name=Alice}"), "\(bob.stdout)")
        #expect(bob.stdout.contains("answer: alice media audio off"), "\(bob.stdout)")
        #expect(bob.stdout.contains("answer: custom items by alice: {topic=web}"), "\(bob.stdout)")
        #expect(bob.stdout.contains("answer: alice hung up"), "\(bob.stdout)")
        // The chat, both ways: the page showed the bot's line under its display name.
        #expect(bob.stdout.contains("answer: chat alice: hello from alice in \(browser)\n"), "\(bob.stdout)")
        #expect(report.has("chat") { $0.from == "bob" && $0.text == "hello from the bot" }, "\(report.eventNames)")
        #expect(
            report.chat.contains("Bob the bot (bob): hello from the bot")
                && report.chat.contains("alice (you): hello from alice in \(browser)"),
            "\(report.chat)"
        )
        print("web client \(browser) calls bot: the chat box showed \(report.chat); screenshot \(screenshot.path)")
        let record = try await Self.newestLogRecord(of: "bob", signaling: signaling)
        #expect(record["result"] as? String == "completed" && record["caller"] as? String == "alice", "\(record)")
        try Self.expectScreenshot(screenshot)
    }

    /// A bot calls a browser user: the page rings, accepts with user info, each sends a chat
    /// line the other shows, and the bot hangs up.
    @Test(arguments: ["chromium", "firefox"])
    func botCallsBrowser(browser: String) async throws {
        try await Interop.require(browser == "chromium" ? .chromium : .firefox)
        let folder = try Interop.workFolder("web-bot-calls-\(browser)")
        // Users with passwords: the page logs in with the user and password fields.
        let (server, page, signaling) = try await Self.serve(folder, passwords: true)
        defer { server.stop() }
        let screenshot = folder.appendingPathComponent("\(browser)-answered.png"),
            botReport = folder.appendingPathComponent("bot.json")
        let alice = try Self.person(
            browser,
            "alice",
            page: page,
            folder: folder,
            password: true,
            [
                "--answer", "--user-info", "name=Ada", "--duration", "60", "--screenshot", screenshot.path, "--chat",
                "hi bob, Ada here",
            ]
        )
        defer { alice.stop() }
        _ = try await alice.waitForLine(prefix: "READY ", timeout: .seconds(90))
        let bob = try Self.bot(
            "bob",
            signaling: signaling,
            folder: folder,
            password: true,
            stdin: "ring ring, bob calling\n",
            ["call", "alice", "--duration", "6", "--stats-interval", "2", "--report", botReport.path, "--chat"]
        )
        defer { bob.stop() }
        let botStatus = try await bob.wait(timeout: .seconds(90))
        let report = try Self.pageReport(alice, status: try await alice.wait(timeout: .seconds(60)))
        #expect(botStatus == 0, "bob exited \(botStatus):\n\(bob.stdout)\n\(bob.stderrTail())")
        #expect(bob.stdout.contains("call: alice accepted {name=Ada}"), "\(bob.stdout)")
        #expect(report.has("incoming") { $0.from == "bob" }, "\(report.eventNames)")
        #expect(report.has("hungUp") { $0.user == "bob" }, "\(report.eventNames)")
        #expect(report.record?.result == "completed", "\(String(describing: report.record))")
        let fromBot = try #require(report.stats["bob"], "no stats of bob")
        let bot = try Self.botReport(botReport)
        let video = bot["video"] as? [String: Any] ?? [:], audio = bot["audio"] as? [String: Any] ?? [:]
        print(
            "web client bot calls \(browser): page accepted after ringing, connected after \(report.connected_s ?? -1) s; page decoded "
                + "\(fromBot.video.framesDecoded) video frames, \(fromBot.audio.packetsReceived) audio packets; bot decoded \(video["frames_decoded"] ?? "-") video, "
                + "\(audio["frames_decoded"] ?? "-") audio frames; bot connected after \(bot["dtls_connected_ms"] ?? "-") ms"
        )
        #expect(fromBot.video.framesDecoded > 40 && fromBot.audio.packetsReceived > 100, "\(fromBot)")
        #expect((video["frames_decoded"] as? Int ?? 0) > 40 && (audio["rms"] as? Double ?? 0) > 0.001, "\(bot)")
        #expect(report.call_log.first?.contains("completed") == true, "\(report.call_log)")
        #expect(bob.stdout.contains("call: chat alice: hi bob, Ada here\n"), "\(bob.stdout)")
        #expect(report.chat.contains("bob: ring ring, bob calling"), "\(report.chat)")
        try Self.expectScreenshot(screenshot)
    }

    /// Chromium rejects a bot's call (the bot's call ends declined); Firefox lets one ring until
    /// the bot gives up (did not respond: no_answer on both sides).
    @Test func browsersRejectAndLetRing() async throws {
        try await Interop.require(.chromium, .firefox)
        let folder = try Interop.workFolder("web-reject-no-answer")
        let (server, page, signaling) = try await Self.serve(folder)
        defer { server.stop() }
        let alice = try Self.person(
            "chromium",
            "alice",
            page: page,
            folder: folder,
            ["--reject", "--user-info", "reason=busy day"]
        )
        defer { alice.stop() }
        let carol = try Self.person("firefox", "carol", page: page, folder: folder, ["--ignore"])
        defer { carol.stop() }
        _ = try await alice.waitForLine(prefix: "READY ", timeout: .seconds(90))
        _ = try await carol.waitForLine(prefix: "READY ", timeout: .seconds(90))
        let rejected = try await ChildProcess.run(
            Interop.callbot.path,
            ["call", "alice", "--server", signaling, "--token", Self.tokens["bob"] ?? ""],
            timeout: .seconds(90)
        )
        #expect(
            rejected.status == 1 && rejected.stdout.contains("call: alice rejected {reason=busy day}")
                && rejected.stdout.contains("call: ended declined"),
            "\(rejected.stdout)\n\(rejected.stderr)"
        )
        let unanswered = try await ChildProcess.run(
            Interop.callbot.path,
            [
                "call", "carol", "--answer-timeout", "10", "--server", signaling, "--token", Self.tokens["bob"] ?? "",
            ],
            timeout: .seconds(90)
        )
        #expect(
            unanswered.status == 1 && unanswered.stdout.contains("call: carol did not respond")
                && unanswered.stdout.contains("call: ended no_answer"),
            "\(unanswered.stdout)\n\(unanswered.stderr)"
        )
        let rejecting = try Self.pageReport(alice, status: try await alice.wait(timeout: .seconds(60)))
        let ringing = try Self.pageReport(carol, status: try await carol.wait(timeout: .seconds(60)))
        #expect(rejecting.record?.result == "declined", "\(String(describing: rejecting.record))")
        #expect(ringing.record?.result == "no_answer", "\(String(describing: ringing.record))")
        #expect(rejecting.call_log.first?.contains("declined") == true, "\(rejecting.call_log)")
        #expect(ringing.call_log.first?.contains("no_answer") == true, "\(ringing.call_log)")
    }

    /// Three parties: Chromium alice calls bob (a bot) and carol (Firefox); everyone decodes
    /// everyone; alice's chat line reaches the bot and Firefox, the bot's reaches alice; carol
    /// leaves and alice and bob go on until alice hangs up.
    @Test func meshOfABotChromiumAndFirefox() async throws {
        try await Interop.require(.chromium, .firefox)
        let folder = try Interop.workFolder("web-mesh")
        let (server, page, signaling) = try await Self.serve(folder)
        defer { server.stop() }
        let bob = try Self.bot(
            "bob",
            signaling: signaling,
            folder: folder,
            stdin: "bob to the mesh\n",
            ["answer", "--stats-interval", "1", "--stats-json", "--chat"]
        )
        defer { bob.stop() }
        let carol = try Self.person(
            "firefox",
            "carol",
            page: page,
            folder: folder,
            [
                "--answer", "--hang-up-after", "10", "--screenshot",
                folder.appendingPathComponent("firefox-mesh.png").path,
            ]
        )
        defer { carol.stop() }
        _ = try await bob.waitForLine(prefix: "READY ", timeout: .seconds(30))
        _ = try await carol.waitForLine(prefix: "READY ", timeout: .seconds(90))
        let alice = try Self.person(
            "chromium",
            "alice",
            page: page,
            folder: folder,
            [
                "--call", "bob,carol", "--chat", "hi everyone, alice here", "--hang-up-after", "18", "--screenshot",
                folder.appendingPathComponent("chromium-mesh.png").path,
            ]
        )
        defer { alice.stop() }
        let carolReport = try Self.pageReport(carol, status: try await carol.wait(timeout: .seconds(120)))
        let aliceReport = try Self.pageReport(alice, status: try await alice.wait(timeout: .seconds(90)))
        let botStatus = try await bob.wait(timeout: .seconds(30))
        #expect(botStatus == 0, "bob exited \(botStatus):\n\(bob.stderrTail())")
        for (name, report, others) in [
            ("alice", aliceReport, ["bob", "carol"]), ("carol", carolReport, ["alice", "bob"]),
        ] {
            for other in others {
                let stats = try #require(report.stats[other], "\(name) has no stats of \(other): \(report.stats.keys)")
                print(
                    "mesh: \(name) (\(report.browser)) decoded \(stats.video.framesDecoded) video frames and \(stats.audio.packetsReceived) audio packets of \(other)"
                )
                #expect(
                    stats.video.framesDecoded > 30 && stats.audio.packetsReceived > 100,
                    "\(name) of \(other): \(stats)"
                )
            }
            #expect(report.record?.result == "completed", "\(name): \(String(describing: report.record))")
        }
        // The bot decoded both browsers; after carol left, alice's video kept coming.
        let decoded = Self.framesDecoded(inStatsLines: bob.stdout)
        print(
            "mesh: bob (bot) decoded \(decoded["alice"] ?? []) video frames of alice over time, \(decoded["carol"]?.last ?? 0) of carol"
        )
        #expect((decoded["carol"]?.last ?? 0) > 30, "\(decoded)")
        #expect(bob.stdout.contains("answer: carol hung up"), "\(bob.stdout)")
        // The chat channels of the mesh: Chromium to the bot and to Firefox, the bot to Chromium.
        #expect(bob.stdout.contains("answer: chat alice: hi everyone, alice here\n"), "\(bob.stdout)")
        #expect(carolReport.chat.contains("alice: hi everyone, alice here"), "\(carolReport.chat)")
        #expect(aliceReport.chat.contains("bob: bob to the mesh"), "\(aliceReport.chat)")
        let carolLeft = try #require(carolReport.record?.ended), aliceLeft = try #require(aliceReport.record?.ended)
        #expect(aliceLeft - carolLeft > 5, "alice stayed \(aliceLeft - carolLeft) s after carol left")
        let aliceFrames = decoded["alice"] ?? []
        #expect(
            aliceFrames.count > 12 && (aliceFrames.last ?? 0) > (aliceFrames.dropLast(6).last ?? 0) + 50,
            "alice's frames at the bot: \(aliceFrames)"
        )
        let bobAtAlice = try #require(aliceReport.stats["bob"])
        #expect(
            bobAtAlice.video.framesDecoded > (carolReport.stats["bob"]?.video.framesDecoded ?? 0),
            "alice kept decoding bob after carol left"
        )
    }

    /// `STATS USER {json}` lines (`--stats-json`): the video frames decoded of each user, line by line.
    static func framesDecoded(inStatsLines output: String) -> [String: [Int]] {
        var frames: [String: [Int]] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("STATS ") {
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count == 3,
                let json = try? JSONSerialization.jsonObject(with: Data(parts[2].utf8)) as? [String: Any],
                let stats = json["stats"] as? [String: [String: Any]]
            else { continue }
            let decoded = stats.values.filter {
                $0["type"] as? String == "inbound-rtp" && $0["kind"] as? String == "video"
            }
            .compactMap { $0["framesDecoded"] as? Int }.reduce(0, +)
            frames[String(parts[1]), default: []].append(decoded)
        }
        return frames
    }
}

/// The `REPORT` of Interop/web_client_user.py.
struct PageReport: Decodable {
    struct Figures: Decodable {
        struct Audio: Decodable { var packetsReceived = 0, totalAudioEnergy = 0.0, audioLevel = 0.0 }
        struct Video: Decodable { var framesDecoded = 0, frameWidth = 0, frameHeight = 0 }
        var audio: Audio
        var video: Video
        var connectedMs: Int?
    }
    struct Event: Decodable {
        var name: String
        var user: String?
        var from: String?
        var userInfo: [String: String]?
        var audioEnabled: Bool?
        var videoEnabled: Bool?
        var text: String?
    }
    struct Record: Decodable { var result: String, ended: Double }

    var browser: String
    var errors: [String]
    var connected_s: Double?
    var record: Record?
    var stats: [String: Figures] = [:]
    var call_log: [[String]] = []
    /// The lines of the page's chat box, `SENDER: TEXT`.
    var chat: [String] = []
    var events: [Event] = []

    var eventNames: [String] { events.map(\.name) }

    func has(_ name: String, where matches: (Event) -> Bool = { _ in true }) -> Bool {
        events.contains { $0.name == name && matches($0) }
    }

    enum CodingKeys: String, CodingKey { case browser, errors, connected_s, record, stats, call_log, chat, events }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        browser = try c.decode(String.self, forKey: .browser)
        errors = try c.decode([String].self, forKey: .errors)
        connected_s = try c.decodeIfPresent(Double.self, forKey: .connected_s)
        record = try c.decodeIfPresent(Record.self, forKey: .record)
        stats = try c.decodeIfPresent([String: Figures].self, forKey: .stats) ?? [:]
        call_log = try c.decodeIfPresent([[String]].self, forKey: .call_log) ?? []
        chat = try c.decodeIfPresent([String].self, forKey: .chat) ?? []
        events = try c.decodeIfPresent([Event].self, forKey: .events) ?? []
    }
}
