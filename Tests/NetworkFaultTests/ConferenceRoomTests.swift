import Foundation
import JanusTestSupport
import Testing

/// A conference room on a real Janus 1.1.2 (Debian's, VideoRoom plugin): Janus runs in
/// namespace `a` (it skips loopback when it gathers, so it gathers on the veth link), six
/// `callbot conference` bots in namespace `b` each publish a tone and the test pattern and
/// subscribe to every other bot, as the participants of a meeting do, and a seventh
/// (`--listen`) only receives. All start at once with `--create-room` (one creates the room, the
/// others find it). Every publisher must decode every other publisher's audio and video (5
/// publishers each, 30 streams), the listener all six (12 streams), and nobody the listener.
@Suite(.serialized) struct ConferenceRoomTests {
    static let room: Int64 = 1234
    static let bots = 6
    static let seconds = 20
    /// The least each stream must deliver in a run of `seconds`: a bot joins up to a few
    /// seconds after the first and its peers leave as their runs end, so about 17 s of every
    /// stream overlap. Opus sends 50 frames a second (850), the pattern 30 (510; the video
    /// encoder drops frames when CI's two cores are short, 330 at the least seen).
    static let minimumAudioFrames = 500
    static let minimumVideoFrames = 75

    @Test func sixPublishersAndAListenerEachDecodeEveryPublisher() async throws {
        try #require(JanusServer.isInstalled, "janus is not installed: run Scripts/bootstrap.sh --tests")
        let folder = try FaultPaths.workFolder("conference-room")
        try await CallSlots.shared.with(weight: 1) {
            try await FaultNetwork.with(.direct) { network in
                let janus = try await JanusServer(
                    namespace: network.a,
                    host: network.addressA,
                    interface: network.interfaceA
                )
                defer { janus.stop() }
                var bots: [FaultProcess] = []
                for name in (1...Self.bots).map({ "bot-\($0)" }) + ["listener"] {
                    bots.append(
                        try network.spawn(
                            in: network.b,
                            name: name,
                            FaultPaths.callbot.path,
                            [
                                "conference", "--janus", janus.url.absoluteString, "--room", "\(Self.room)",
                                "--create-room", "--display", name, "--duration", "\(Self.seconds)", "--stats-interval",
                                "5", "--report", folder.appendingPathComponent("\(name).json").path,
                                name == "listener" ? "--listen" : "--publish",
                            ],
                            folder: folder
                        )
                    )
                }
                for bot in bots {
                    let status = try await bot.wait(timeout: .seconds(Self.seconds + 60))
                    #expect(status == 0, "\(bot.name) exited \(status): \(bot.stderrTail())\nJanus: \(janus.logTail())")
                }
                var ids: [String: Int64] = [:]
                var rows: [String: [[String: Any]]] = [:]
                for name in (1...Self.bots).map({ "bot-\($0)" }) + ["listener"] {
                    let data = try Data(contentsOf: folder.appendingPathComponent("\(name).json"))
                    let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                    #expect(report["connected"] as? Bool == true, "\(name): \(report)")
                    #expect((report["errors"] as? [String])?.isEmpty == true, "\(name): \(report["errors"] ?? "")")
                    rows[name] = report["publishers"] as? [[String: Any]] ?? []
                }
                // Each bot's rows name the other publishers by their display names.
                for (name, list) in rows {
                    let displays = Set(list.compactMap { $0["display"] as? String })
                    let others = Set((1...Self.bots).map { "bot-\($0)" }).subtracting([name])
                    #expect(displays == others, "\(name) received \(displays.sorted())")
                    for row in list {
                        let display = row["display"] as? String ?? "?"
                        if let id = (row["id"] as? NSNumber)?.int64Value { ids[display] = id }
                        let audio = row["audio_frames_decoded"] as? Int ?? 0
                        let video = row["video_frames_decoded"] as? Int ?? 0
                        #expect(audio >= Self.minimumAudioFrames, "\(name) decoded \(audio) audio frames of \(display)")
                        #expect(video >= Self.minimumVideoFrames, "\(name) decoded \(video) video frames of \(display)")
                    }
                }
                #expect(Set(ids.values).count == Self.bots, "each bot has its own id in the room: \(ids)")
            }
        }
    }
}
