import Foundation
import JanusTestSupport
import TestScheduling
import Testing

/// Conference rooms on a real Janus 1.1.2 (Debian's, VideoRoom plugin): Janus runs in
/// namespace `a` (it skips loopback when it gathers, so it gathers on the veth link), the bots
/// (`callbot conference`) in namespace `b`. Each publisher sends a tone and the test pattern
/// and subscribes to every other publisher, as the participants of a meeting do; a listener
/// (`--listen`) only receives, and records each publisher into its own file. All start with
/// `--create-room` (one creates the room, the others find it).
///
/// Every bot must decode every publisher it was in the room with, audio and video, in
/// proportion to the time they shared; nobody receives the listener; the recordings play to
/// the end.
@Suite(.serialized) struct ConferenceRoomTests {
    static let room: Int64 = 1234

    /// A participant of a run: who runs it, when it starts, how long it stays.
    struct Bot: Sendable {
        enum Kind: Sendable, Equatable {
            /// `callbot conference --publish`.
            case publisher
            /// `callbot conference --listen --record`.
            case listener
            /// aiortc (`Interop/aiortc_peer.py janus-publisher`, through Janus's HTTP API): it
            /// publishes and subscribes to nobody.
            case aiortc
            /// The example bot `Examples/room-recorder`: a listener that records, in a folder
            /// of its own; it writes no report.
            case roomRecorder
            /// A person in headless Chromium or Firefox on the web client's conference page
            /// (`callbot serve --janus`, driven by `Interop/conference_user.py`): publishes its
            /// fake camera and microphone and receives everyone.
            case browser(String)
        }
        var name: String
        var kind = Kind.publisher
        var start = 0
        var seconds = 20
        /// What a `callbot conference` publisher sends as video (`--video`): the 640x480 test
        /// pattern unless a file is named.
        var video = "pattern"
        /// What a browser types into the conference page's chat box halfway through its stay.
        var chat: String?
        var end: Int { start + seconds }
        var publishes: Bool { kind == .publisher || kind == .aiortc || isBrowser }
        var subscribes: Bool { kind != .aiortc }
        var isBrowser: Bool { if case .browser = kind { true } else { false } }
        /// Seconds from its start until it is in the room: a browser starts first (its driver,
        /// then the page).
        var settling: Int { isBrowser ? Self.browserStartup : 0 }
        static let browserStartup = 5

        /// Seconds both were in the room.
        func overlap(_ other: Bot) -> Int {
            max(0, min(end, other.end) - max(start + settling, other.start + other.settling))
        }

        /// The most seconds both can have been in the room: a browser may be in it sooner than
        /// ``browserStartup`` (Chromium was once in 3.9 s), so none of it is taken off.
        func longestOverlap(_ other: Bot) -> Int {
            max(0, min(end, other.end) - max(start, other.start))
        }
    }

    /// The least a stream must deliver for `overlap` seconds shared: Opus sends 50 frames a
    /// second and the pattern 30; a bot needs about a second to join and the last second may
    /// be cut by a leave, and the video encoder drops frames when CI's two cores are short
    /// (19 a second at the least seen), so half the audio and an eighth of the video of all
    /// but 3 s. The most: everything sent in the `longest` overlap and a second more. A room that fills
    /// the machine (`videoRate`, frames a second) may ask less video of its streams.
    static func frameRange(
        overlap: Int,
        longest: Int? = nil,
        videoRate: Double = 3.75
    ) -> (audio: ClosedRange<Int>, video: ClosedRange<Int>) {
        let counted = Double(max(0, overlap - 3)), most = max(overlap, longest ?? overlap) + 1
        return (Int(25 * counted)...(50 * most), Int(videoRate * counted)...(30 * most))
    }

    /// Six publishers and a listener; bot-6 leaves after 8 s and bot-7 joins at 10 s: Janus
    /// takes bot-6's streams out of every subscription and may give their `mid`s to bot-7's,
    /// so each row must count its own publisher's frames only.
    @Test func publishersComeAndGoAndEveryoneDecodesEveryoneTheyMet() async throws {
        try await Self.run(
            "conference-room",
            (1...5).map { Bot(name: "bot-\($0)") } + [
                Bot(name: "bot-6", seconds: 8), Bot(name: "bot-7", start: 10, seconds: 10),
                // The listener stays a second longer: each recording ends with its publisher
                // leaving (what it sent last in both kinds), not cut while it sends.
                Bot(name: "listener", kind: .listener, seconds: 21),
            ]
        )
    }

    /// aiortc publishes into the same room as our bots: a publisher of ours and the listener
    /// decode its Opus and VP8 as Janus relays them, and it connects to Janus as we do. The
    /// example room-recorder joins the meeting 2 s later (it does not make rooms) and records
    /// both publishers too.
    @Test func anAiortcPublisherInTheRoom() async throws {
        try #require(ProjectPython.exists, Comment(rawValue: ProjectPython.missing("aiortc")))
        try await Self.run(
            "conference-aiortc",
            [
                Bot(name: "aiortc", kind: .aiortc, seconds: 15), Bot(name: "bot-1", seconds: 15),
                Bot(name: "listener", kind: .listener, seconds: 16),
                Bot(name: "room-recorder", kind: .roomRecorder, start: 2, seconds: 13),
            ]
        )
    }

    /// Chromium and Firefox join the room through the web client's conference page (`callbot
    /// serve --janus`), as people do, with three publishing bots and a listener that records:
    /// each browser decodes every bot and the other browser, every bot decodes both browsers,
    /// what each browser types into the chat box reaches the bots and the other browser, and
    /// the listener's recordings of the browsers play to the end.
    @Test func browsersJoinThroughTheWebClient() async throws {
        try #require(ProjectPython.exists, Comment(rawValue: ProjectPython.missing("selenium")))
        try await Self.run(
            "conference-browsers",
            [
                Bot(name: "chromium", kind: .browser("chromium"), seconds: 25, chat: "hello from chromium ✓"),
                Bot(name: "firefox", kind: .browser("firefox"), seconds: 25, chat: "hello from firefox ✓"),
            ] + (1...3).map { Bot(name: "bot-\($0)", start: 2, seconds: 23) } + [
                Bot(name: "listener", kind: .listener, start: 2, seconds: 24)
            ]
        )
    }

    /// A meeting of twelve for a minute: ten publishing bots, Chromium and Firefox, everyone
    /// receiving everyone: 132 streams decoded on two cores. The bots send a 320x240 VP8 file
    /// at 15 frames a second, as the small tiles of a meeting that size are; the browsers send
    /// their cameras at 640x480. Every stream must decode all the time, audio as in every room
    /// test, video at one frame a second at least: the two browsers (each decoding and drawing
    /// eleven tiles) and Janus fill the two cores, and the bots, at a lower priority, send 3
    /// to 6 of their 15 frames a second. It needs an optimized callbot (`SWIFTRTC_CALLBOT=` a
    /// release build's; ten debug builds took 11% of a core each more); the suite's other room
    /// tests cover the same paths with fewer participants.
    @Test(
        .enabled(if: FaultPaths.callbotIsRelease, "a twelve-person meeting needs SWIFTRTC_CALLBOT=<release callbot>")
    )
    func twelveInAMeetingForAMinute() async throws {
        try #require(ProjectPython.exists, Comment(rawValue: ProjectPython.missing("selenium")))
        let folder = try FaultPaths.workFolder("conference-twelve-media")
        let video = folder.appendingPathComponent("tile-320x240.ivf").path
        _ = try await FaultNetwork.command(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=15", "-t", "70", "-c:v", "libvpx",
                "-b:v", "250k", "-g", "30", "-deadline", "realtime", "-cpu-used", "8", video,
            ]
        )
        try await Self.run(
            "conference-twelve",
            [
                Bot(name: "chromium", kind: .browser("chromium"), seconds: 65),
                Bot(name: "firefox", kind: .browser("firefox"), seconds: 65),
            ] + (1...10).map { Bot(name: "bot-\($0)", start: 2, seconds: 63, video: video) },
            videoRate: 1
        )
    }

    /// `callbot load --janus`: four publishers in one process fill a room, each on its own Janus
    /// session; the JSON line says all four joined and each decoded the three others.
    @Test func aLoadFillsARoom() async throws {
        try await Self.withJanus("conference-load") { network, janus, folder in
            let report = folder.appendingPathComponent("load.json")
            let load = try network.spawn(
                in: network.b,
                name: "load",
                FaultPaths.callbot.path,
                [
                    "load", "--janus", janus.url.absoluteString, "--room", "\(Self.room)", "--bots", "4",
                    "--duration",
                    "6", "--ramp", "1", "--video", "--report", report.path,
                ],
                folder: folder
            )
            let status = try await load.wait(timeout: .seconds(60))
            #expect(status == 0, "load exited \(status): \(load.stdout)\n\(load.stderrTail())")
            let line = try #require(load.stdout.split(separator: "\n").last.map(String.init))
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(json["joined"] as? Int == 4, "\(line)")
            #expect(json["streams_expected"] as? Int == 24 && json["streams_decoding"] as? Int == 24, "\(line)")
            // 4 bots × 3 others × about 6 s at 50 audio and 15 video frames a second.
            #expect((json["audio_frames_decoded"] as? Int ?? 0) >= 12 * 150, "\(line)")
            #expect((json["video_frames_decoded"] as? Int ?? 0) >= 12 * 20, "\(line)")
            #expect(try String(contentsOf: report, encoding: .utf8) == line + "\n", "--report holds the same line")
        }
    }

    /// Janus is killed 7 s into a room of three publishers and started again a second later:
    /// each bot's session ends (the claim of its Janus session fails), and it joins again
    /// (making the room again) and goes on. Each report says one rejoin, and has rows for the
    /// two others from both stays (new ids after the restart), each with its share of frames.
    @Test func aRestartedJanusIsJoinedAgain() async throws {
        try await Self.withJanus("conference-restart") { network, janus, folder in
            let started = ContinuousClock.now
            let names = ["bot-1", "bot-2", "bot-3"]
            var bots: [ChildProcess] = []
            for name in names {
                bots.append(
                    try network.spawn(
                        in: network.b,
                        name: name,
                        FaultPaths.callbot.path,
                        [
                            "conference", "--janus", janus.url.absoluteString, "--room", "\(Self.room)",
                            "--create-room", "--display", name, "--duration", "20", "--stats-interval", "5",
                            "--report", folder.appendingPathComponent("\(name).json").path,
                        ],
                        folder: folder
                    )
                )
            }
            try await Task.sleep(until: started + .seconds(7))
            janus.stop()
            let killed = ContinuousClock.now
            try await Task.sleep(until: started + .seconds(8))
            try await janus.start()
            // Every bot back in the room (its second "joined room" line) within 10 s of the kill.
            var back: [String: Duration] = [:]
            while back.count < bots.count, ContinuousClock.now < killed + .seconds(20) {
                for bot in bots where back[bot.name] == nil {
                    if bot.stderr.components(separatedBy: "callbot: joined room ").count > 2 {
                        back[bot.name] = ContinuousClock.now - killed
                    }
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            print("conference restart: back in the room after the kill: \(back.sorted { $0.key < $1.key })")
            #expect(back.count == bots.count && back.values.allSatisfy { $0 < .seconds(10) }, "\(back)")
            for bot in bots {
                let status = try await bot.wait(timeout: .seconds(60))
                #expect(status == 0, "\(bot.name) exited \(status): \(bot.stderrTail())\nJanus: \(janus.logTail())")
            }
            for name in names {
                let data = try Data(contentsOf: folder.appendingPathComponent("\(name).json"))
                let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                #expect(report["connected"] as? Bool == true, "\(name): \(report)")
                #expect((report["errors"] as? [String])?.isEmpty == true, "\(name): \(report["errors"] ?? "")")
                #expect(report["rejoins"] as? Int == 1, "\(name): \(report["rejoins"] ?? "none")")
                let rows = report["publishers"] as? [[String: Any]] ?? []
                for other in names where other != name {
                    let stays = rows.filter { $0["display"] as? String == other }
                    #expect(
                        Set(stays.compactMap { ($0["id"] as? NSNumber)?.int64Value }).count == 2,
                        "\(name): \(rows)"
                    )
                    // The stays are in order: about 7 s before the restart, about 10 after.
                    for (row, shared) in zip(stays, [7, 10]) {
                        let range = Self.frameRange(overlap: shared)
                        let audio = row["audio_frames_decoded"] as? Int ?? 0
                        let video = row["video_frames_decoded"] as? Int ?? 0
                        #expect(
                            audio >= range.audio.lowerBound,
                            "\(name) decoded \(audio) audio frames of \(other)"
                        )
                        #expect(
                            video >= range.video.lowerBound,
                            "\(name) decoded \(video) video frames of \(other)"
                        )
                    }
                }
            }
        }
    }

    /// `conference --chat`: bot-1's standard input gets a line a second for 8 s; each goes to the room
    /// on its data channel, and bot-2 prints it with bot-1's name (control characters escaped)
    /// and counts it in its report. Janus relays only to subscriptions already up and keeps
    /// nothing, so the first lines may miss bot-2; the last ones reach it.
    @Test func chatLinesReachTheRoom() async throws {
        try await Self.withJanus("conference-chat") { network, janus, folder in
            func bot(_ name: String, input: String?) throws -> ChildProcess {
                let arguments = [
                    FaultPaths.callbot.path, "conference", "--janus", janus.url.absoluteString, "--room",
                    "\(Self.room)", "--create-room", "--display", name, "--duration", "12", "--chat", "--no-video",
                    "--report", folder.appendingPathComponent("\(name).json").path,
                ]
                // Standard input: what `input` prints (nothing: it ends at once).
                let script = "{ \(input ?? ":"); } | exec \"$0\" \"$@\""
                return try network.spawn(
                    in: network.b,
                    name: name,
                    "/bin/sh",
                    ["-c", script] + arguments,
                    folder: folder
                )
            }
            let listener = try bot("bot-2", input: nil)
            let talker = try bot(
                "bot-1",
                input: "for i in 1 2 3 4 5 6 7 8; do sleep 1; printf 'line %s \\033[31mred\\n' $i; done"
            )
            for process in [talker, listener] {
                let status = try await process.wait(timeout: .seconds(60))
                #expect(status == 0, "\(process.name) exited \(status): \(process.stderrTail())")
            }
            let printed = listener.stdout.split(separator: "\n").filter { $0.hasPrefix("conference: chat ") }
            print("conference chat: bot-2 printed \(printed.count) lines: \(printed.last ?? "")")
            #expect(printed.last == "conference: chat bot-1: line 8 \\u{1B}[31mred", "\(printed)")
            #expect(!talker.stdout.contains("conference: chat "), "nobody else talked")
            let data = try Data(contentsOf: folder.appendingPathComponent("bot-2.json"))
            let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let row = (report["publishers"] as? [[String: Any]])?.first { $0["display"] as? String == "bot-1" }
            #expect(row?["data_messages_received"] as? Int == printed.count, "\(report)")
        }
    }

    /// `conference --simulcast` publishes three sizes, each in three temporal layers; `--layer 0`
    /// receives the smallest and the default the largest, and `--temporal 0` a quarter of the
    /// smallest's frames: each listener prints the layer Janus switched it to, reports it, and
    /// decodes pictures of that size (the pattern is 640x480: 160x120 at layer 0).
    @Test func eachListenerReceivesTheSimulcastLayerItChose() async throws {
        try await Self.withJanus("conference-simulcast") { network, janus, folder in
            func bot(_ name: String, _ extra: [String], duration: Int) throws -> ChildProcess {
                try network.spawn(
                    in: network.b,
                    name: name,
                    FaultPaths.callbot.path,
                    [
                        "conference", "--janus", janus.url.absoluteString, "--room", "\(Self.room)", "--create-room",
                        "--display", name, "--duration", "\(duration)", "--no-audio",
                        "--report", folder.appendingPathComponent("\(name).json").path,
                    ] + extra,
                    folder: folder
                )
            }
            let publisher = try bot("bot-1", ["--simulcast"], duration: 14)
            try await Task.sleep(for: .seconds(1))
            let small = try bot("bot-2", ["--listen", "--layer", "0"], duration: 8)
            let large = try bot("bot-3", ["--listen"], duration: 8)
            let fewest = try bot("bot-4", ["--listen", "--layer", "0", "--temporal", "0"], duration: 8)
            for process in [small, large, fewest, publisher] {
                let status = try await process.wait(timeout: .seconds(60))
                #expect(status == 0, "\(process.name) exited \(status): \(process.stderrTail())")
            }
            var frames: [String: Int] = [:]
            for (listener, layer, temporal, width) in [(small, 0, 2, 160), (large, 2, 2, 640), (fewest, 0, 0, 160)] {
                let printed = listener.stdout.split(separator: "\n").filter { $0.hasPrefix("conference: layer ") }
                print("conference simulcast: \(listener.name) printed \(printed)")
                // Janus also says which temporal layer (how many of the frames) it lets through.
                #expect(
                    printed.last == "conference: layer bot-1: substream \(layer), temporal \(temporal)",
                    "\(printed)"
                )
                let data = try Data(contentsOf: folder.appendingPathComponent("\(listener.name).json"))
                let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                let row = (report["publishers"] as? [[String: Any]])?.first { $0["display"] as? String == "bot-1" }
                #expect(row?["layer"] as? Int == layer, "\(report)")
                frames[listener.name] = row?["video_frames_decoded"] as? Int ?? 0
                #expect((frames[listener.name] ?? 0) > (temporal == 0 ? 12 : 50), "\(report)")
                let video = report["video"] as? [String: Any]
                #expect(video?["width"] as? Int == width && video?["height"] as? Int == width * 3 / 4, "\(report)")
            }
            // Temporal layer 0 is every fourth frame of the same encoding.
            print("conference simulcast: frames decoded \(frames)")
            #expect(2 * (frames["bot-4"] ?? 0) < (frames["bot-2"] ?? 0), "\(frames)")
        }
    }

    /// Janus in namespace `a` of a network of its own (gathering on its veth link), for `body`,
    /// with the work folder `name` for logs and reports.
    static func withJanus(_ name: String, _ body: (FaultNetwork, JanusServer, URL) async throws -> Void) async throws {
        try #require(JanusServer.isInstalled, "janus is not installed: run Scripts/bootstrap.sh --tests")
        let folder = try FaultPaths.workFolder(name)
        try await CallSlots.shared.with(weight: 1) {
            try await FaultNetwork.with(.direct) { network in
                let janus = try await JanusServer(
                    namespace: network.a,
                    host: network.addressA,
                    interface: network.interfaceA
                )
                defer { janus.stop() }
                try await body(network, janus, folder)
            }
        }
    }

    /// With browsers in `schedule`: `callbot serve --janus` on the loopback of namespace `b`,
    /// where the browsers run (a page from `127.0.0.1` may use the camera without TLS), and the
    /// URL of its conference page.
    static func conferencePage(
        _ schedule: [Bot],
        network: FaultNetwork,
        janus: JanusServer,
        folder: URL
    ) async throws -> (server: ChildProcess, url: String)? {
        guard schedule.contains(where: \.isBrowser) else { return nil }
        let tokens = folder.appendingPathComponent("tokens")
        try "nobody:conference-page-needs-no-login\n".write(to: tokens, atomically: true, encoding: .utf8)
        let server = try network.spawn(
            in: network.b,
            name: "serve",
            FaultPaths.callbot.path,
            [
                "serve", "--host", "127.0.0.1", "--port", "0", "--tokens", tokens.path, "--janus",
                janus.url.absoluteString,
            ],
            folder: folder
        )
        do {
            let ready = try await server.waitForLine(prefix: "READY ", timeout: .seconds(30))
            // READY ws://HOST:PORT/signaling: the page is on the same origin.
            guard let signaling = URL(string: ready), let host = signaling.host, let port = signaling.port else {
                throw FaultFailure("serve printed READY \(ready)")
            }
            return (server, "http://\(host):\(port)/conference")
        } catch {
            await server.end()
            throw error
        }
    }

    /// Runs `schedule` in a room and checks every report and recording.
    static func run(_ name: String, _ schedule: [Bot], videoRate: Double = 3.75) async throws {
        try await Self.withJanus(name) { network, janus, folder in
            let recordings = folder.appendingPathComponent("recordings")
            try FileManager.default.createDirectory(at: recordings, withIntermediateDirectories: true)
            let page = try await conferencePage(schedule, network: network, janus: janus, folder: folder)
            // With a browser that talks, the bots print what the room says (`--chat`).
            let talking = schedule.contains { $0.chat != nil }
            let started = ContinuousClock.now
            var processes: [ChildProcess] = []
            // The schedule as it ran: each bot from when it was spawned. Spawning into the
            // namespace takes a while on a loaded machine (the sixth of seven bots once started
            // 4 s late, so its 8 s stay met a bot that joined at 10 s); what everyone must have
            // received follows who was really there together.
            var ran: [Bot] = []
            for bot in schedule.sorted(by: { $0.start < $1.start }) {
                try await Task.sleep(until: started + .seconds(bot.start))
                var spawned = bot
                let late = (ContinuousClock.now - started).components
                spawned.start = Int((Double(late.seconds) + Double(late.attoseconds) / 1e18).rounded())
                let report = folder.appendingPathComponent("\(bot.name).json").path
                let example = folder.appendingPathComponent(bot.name)
                if bot.kind == .roomRecorder {
                    try FileManager.default.createDirectory(at: example, withIntermediateDirectories: true)
                }
                let scripts = FaultPaths.scripts
                let (executable, arguments): (String, [String]) =
                    switch bot.kind {
                    case .browser(let browser):
                        (
                            ProjectPython.path,
                            [
                                scripts.appendingPathComponent("conference_user.py").path, browser, page?.url ?? "",
                                "--room", "\(room)", "--display", bot.name, "--duration",
                                "\(bot.seconds - bot.settling)",
                                "--report", report, "--screenshot",
                                folder.appendingPathComponent("\(bot.name).png").path,
                            ] + (bot.chat.map { ["--chat", $0] } ?? [])
                        )
                    case .roomRecorder:
                        (
                            "/bin/sh",
                            [
                                "-c", "cd \"$0\" && exec \"$@\"", example.path, FaultPaths.built("room-recorder").path,
                                janus.url.absoluteString, "\(room)", "\(bot.seconds)",
                            ]
                        )
                    case .aiortc:
                        (
                            ProjectPython.path,
                            [
                                scripts.appendingPathComponent("aiortc_peer.py").path, "janus-publisher",
                                janus.httpURL.absoluteString, "--room", "\(room)", "--display", bot.name,
                                "--duration", "\(bot.seconds)", "--allow-address", network.addressB, "--allow-address",
                                network.addressA, "--report", report,
                            ]
                        )
                    case .publisher, .listener:
                        (
                            FaultPaths.callbot.path,
                            [
                                "conference", "--janus", janus.url.absoluteString, "--room", "\(room)",
                                "--create-room", "--display", bot.name, "--duration", "\(bot.seconds)",
                                "--stats-interval", "5", "--report", report,
                            ]
                                + (bot.kind == .listener
                                    ? ["--listen", "--record", recordings.path] : ["--publish", "--video", bot.video])
                                + (talking ? ["--chat"] : [])
                        )
                    }
                processes.append(
                    try network.spawn(in: network.b, name: bot.name, executable, arguments, folder: folder)
                )
                ran.append(spawned)
            }
            let schedule = ran
            // Everyone's end, and 40 s more for the slowest to leave (a browser closing).
            let deadline = started + .seconds((schedule.map(\.end).max() ?? 0) + 40)
            for process in processes {
                let status = try await process.wait(timeout: deadline - ContinuousClock.now)
                #expect(
                    status == 0,
                    "\(process.name) exited \(status): \(process.stderrTail())\nJanus: \(janus.logTail())"
                )
            }
            await page?.server.end()
            let ids = try check(schedule, reportsIn: folder, videoRate: videoRate)
            try checkChat(schedule, processes: processes, reportsIn: folder)
            #expect(Set(ids.values).count == schedule.count { $0.publishes }, "publisher ids: \(ids)")
            if let listener = schedule.first(where: { $0.kind == .listener }) {
                try await checkRecordings(in: recordings, of: schedule, listener: listener, ids: ids)
            }
            for recorder in schedule where recorder.kind == .roomRecorder {
                let printed = processes.first { $0.name == recorder.name }?.stdout ?? ""
                #expect(printed.hasPrefix("READY\n") && printed.contains("recorded "), "\(recorder.name): \(printed)")
                try await checkRecordings(
                    in: folder.appendingPathComponent(recorder.name),
                    of: schedule,
                    listener: recorder,
                    ids: ids
                )
            }
        }
    }

    /// Each bot's report: connected without errors, and for one that subscribes a row for each
    /// publisher it was in the room with, with frames in proportion. Returns each publisher's
    /// id in the room, by name.
    static func check(_ schedule: [Bot], reportsIn folder: URL, videoRate: Double) throws -> [String: Int64] {
        var ids: [String: Int64] = [:]
        for bot in schedule where bot.kind != .roomRecorder {
            let data = try Data(contentsOf: folder.appendingPathComponent("\(bot.name).json"))
            let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(report["connected"] as? Bool == true, "\(bot.name): \(report)")
            #expect((report["errors"] as? [String])?.isEmpty == true, "\(bot.name): \(report["errors"] ?? "")")
            guard bot.subscribes else { continue }
            let rows = report["publishers"] as? [[String: Any]] ?? []
            let met = Set(schedule.filter { $0.publishes && $0.name != bot.name && $0.overlap(bot) > 0 }.map(\.name))
            #expect(Set(rows.compactMap { $0["display"] as? String }) == met, "\(bot.name): \(rows)")
            for row in rows {
                let display = row["display"] as? String ?? "?"
                guard let publisher = schedule.first(where: { $0.name == display }) else { continue }
                if let id = (row["id"] as? NSNumber)?.int64Value { ids[display] = id }
                let range = frameRange(
                    overlap: publisher.overlap(bot),
                    longest: publisher.longestOverlap(bot),
                    videoRate: videoRate
                )
                let audio = row["audio_frames_decoded"] as? Int ?? 0
                let video = row["video_frames_decoded"] as? Int ?? 0
                #expect(range.audio.contains(audio), "\(bot.name) decoded \(audio) audio frames of \(display)")
                #expect(range.video.contains(video), "\(bot.name) decoded \(video) video frames of \(display)")
            }
        }
        return ids
    }

    /// What a browser said halfway through its stay reached everyone else who subscribes and
    /// was in the room then: each bot printed it (`conference: chat NAME: TEXT`), each other
    /// browser's chat box shows it.
    static func checkChat(_ schedule: [Bot], processes: [ChildProcess], reportsIn folder: URL) throws {
        for talker in schedule {
            guard let text = talker.chat else { continue }
            let said = talker.start + talker.settling + (talker.seconds - talker.settling) / 2
            for hearer in schedule where hearer.name != talker.name && hearer.subscribes {
                guard hearer.start + hearer.settling + 2 < said, said + 2 < hearer.end else { continue }
                switch hearer.kind {
                case .publisher, .listener:
                    let printed = processes.first { $0.name == hearer.name }?.stdout ?? ""
                    #expect(
                        printed.contains("conference: chat \(talker.name): \(text)\n"),
                        "\(hearer.name) did not print \(talker.name)'s line"
                    )
                case .browser:
                    let data = try Data(contentsOf: folder.appendingPathComponent("\(hearer.name).json"))
                    let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                    let lines = report["chat"] as? [String] ?? []
                    #expect(lines.contains("\(talker.name): \(text)"), "\(hearer.name)'s chat box: \(lines)")
                case .aiortc, .roomRecorder:
                    break
                }
            }
        }
    }

    /// Each stream of a recording: its codec and when it starts and ends (seconds, from its
    /// packets' timestamps).
    static func streamSpans(of file: String) async throws -> [(codec: String, start: Double, end: Double)] {
        var spans: [(codec: String, start: Double, end: Double)] = []
        for index in 0..<2 {
            let packets = try await FaultNetwork.command(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", "\(index)", "-show_entries", "packet=pts_time", "-of", "csv=p=0",
                    file,
                ]
            )
            let codec = try await FaultNetwork.command(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", "\(index)", "-show_entries", "stream=codec_name", "-of",
                    "csv=p=0", file,
                ]
            ).trimmingCharacters(in: .whitespacesAndNewlines)
            let times = packets.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard let first = times.min(), let last = times.max() else { continue }
            spans.append((codec, first, last))
        }
        return spans
    }

    /// The listener's `--record`: one WebM file per publisher (`NAME-ID.webm`), Opus and VP8,
    /// that ffmpeg plays to the end without an error, as long as half the time shared at least.
    static func checkRecordings(in folder: URL, of schedule: [Bot], listener: Bot, ids: [String: Int64]) async throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".webm") }
        #expect(Set(files) == Set(ids.map { "\($0.key)-\($0.value).webm" }), "recordings: \(files.sorted())")
        for bot in schedule where bot.publishes {
            guard let id = ids[bot.name] else { continue }
            let file = folder.appendingPathComponent("\(bot.name)-\(id).webm").path
            let streams = try await Self.streamSpans(of: file)
            #expect(Set(streams.map(\.codec)) == ["opus", "vp8"], "\(file): \(streams)")
            // Each track's timeline begins when its first frame arrives, then follows its RTP
            // timestamps: the audio from the recording's start, the video from the first
            // keyframe after it (the recorder asks for one at once, and again each second until
            // it comes), so the video begins up to a keyframe's round trip later. A bot's end
            // together: a bot that leaves first sends what its tracks still held, and the
            // recording takes what the listener's receivers held when it left. (The listener
            // outlives the bots: a recording it cuts while a publisher sends ends where each
            // kind was on the wire, the video behind by the sender's encoding delay then.) A
            // browser's do not have to: under load its video leaves up to half a second behind
            // its audio (its capture and encoder; Chromium measured 532 ms, at 20 frames a
            // second without a gap to the end), so its recording holds less of its video.
            if let audio = streams.first(where: { $0.codec == "opus" }),
                let video = streams.first(where: { $0.codec == "vp8" })
            {
                let (wait, ends) = (video.start - audio.start, abs(audio.end - video.end))
                print(
                    "recording \(bot.name): audio \(audio.start)...\(audio.end) s, video \(video.start)...\(video.end) s: video from \(Int(wait * 1000)) ms, ends \(Int(ends * 1000)) ms apart"
                )
                #expect(wait > -0.1 && wait < 1.5, "\(file): audio \(audio), video \(video)")
                #expect(bot.isBrowser || ends < 0.5, "\(file): audio \(audio), video \(video)")
            }
            let duration = try await FaultNetwork.command(
                "ffprobe",
                ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file]
            )
            let seconds = Double(duration.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            #expect(seconds >= Double(bot.overlap(listener)) / 2, "\(file) holds \(seconds) s")
            // Played to the end: every packet decodes (-xerror stops at the first decoding error).
            // Not stderr: under load the publisher's frames come unevenly and ffmpeg's null
            // output then complains of equal timestamps of its own making (the file's are
            // strictly increasing).
            let result = try await ChildProcess.run(
                FaultPaths.which("ffmpeg") ?? "ffmpeg",
                ["-v", "error", "-xerror", "-i", file, "-f", "null", "-"]
            )
            #expect(result.status == 0, "\(file): \(result.stderr)")
        }
    }
}
