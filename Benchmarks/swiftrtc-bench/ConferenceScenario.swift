import Foundation
import JanusTestSupport
import SwiftRTCBenchReport
import SwiftRTCCalls
import SwiftRTCJanus
import SwiftRTCMedia
import SwiftRTCPeer

/// K listener bots in this process subscribed to one publisher of ours through a real Janus
/// (Debian's `janus`, in a network namespace joined to this one by a veth pair; needs root):
/// the publisher sends a tone and the 640x480 test pattern, every listener decodes both. The
/// process's CPU and resident memory are measured with the publisher alone, then with the K
/// listeners: the difference is the cost of K × 2 subscribed streams (Janus's own CPU is its
/// process's, not counted). Beside each count, the same media as K loopback P2P calls in this
/// process (each caller encoding its own copy, each callee decoding it).
enum ConferenceScenario {
    static let room: Int64 = 4242

    static func run(listeners counts: [Int], seconds: Double) async throws -> [BenchResult] {
        guard JanusServer.isInstalled else {
            throw BenchError("janus is not installed (apt-get install -y janus)")
        }
        return try await JanusNetwork.withJanus { network, server in
            let janus = try await JanusSession.connect(JanusSession.Configuration(url: server.url))
            var options = ConferenceSession.Options()
            options.connection = PeerConnection.Configuration(gatherAddresses: [network.localAddress])
            options.createsRoom = true
            options.display = "publisher"
            let publisher = try await ConferenceSession.join(janus, room: room, options: options)
            _ = publisher.localAudioTrack?.play(ToneGenerator())
            _ = publisher.localVideoTrack?.play(TestPatternSource())
            try await Task.sleep(for: .seconds(2))
            let alone = try await measure(seconds: seconds)
            var results: [BenchResult] = []
            options.role = .listener
            ProcessUsage.trimHeap()
            let residentAlone = ProcessUsage.residentBytes()
            var listeners: [(ConferenceSession, Task<Void, Never>)] = []
            for count in counts {
                while listeners.count < count {
                    options.display = "listener-\(listeners.count + 1)"
                    let listener = try await ConferenceSession.join(janus, room: room, options: options)
                    listeners.append((listener, decodeEverything(listener)))
                }
                // Until every listener decodes video.
                let deadline = ContinuousClock.now + .seconds(30)
                while ContinuousClock.now < deadline {
                    var ready = 0
                    for (listener, _) in listeners
                    where await listener.publisherStats().first?.videoFramesDecoded ?? 0 > 0 {
                        ready += 1
                    }
                    if ready == listeners.count { break }
                    try await Task.sleep(for: .milliseconds(200))
                }
                let decodedBefore = await decoded(listeners.map(\.0))
                let usage = try await measure(seconds: seconds)
                let decodedAfter = await decoded(listeners.map(\.0))
                let streams = 2 * count
                let cores = usage.cores - alone.cores
                results.append(
                    result(
                        "conference-\(count)",
                        profile: "janus-videoroom",
                        usage: usage,
                        frames: decodedAfter.frames - decodedBefore.frames,
                        extra: [
                            ("listeners", Double(count)),
                            ("cpu_cores_used", usage.cores),
                            ("cpu_cores_publisher_alone", alone.cores),
                            ("cpu_percent_per_stream", cores / Double(streams) * 100),
                            ("audio_frames_per_s", Double(decodedAfter.audio - decodedBefore.audio) / usage.seconds),
                            ("video_frames_per_s", Double(decodedAfter.video - decodedBefore.video) / usage.seconds),
                            (
                                "rss_kb_per_stream",
                                Double(ProcessUsage.residentBytes() - residentAlone) / 1024 / Double(streams)
                            ),
                        ],
                        note:
                            "1 publisher (Opus + VP8 640x480 30 fps) and \(count) listeners decoding both, through Janus"
                    )
                )
            }
            for (listener, task) in listeners {
                task.cancel()
                await listener.leave()
            }
            await publisher.leave()
            await janus.destroy()
            for count in counts { results.append(try await p2p(calls: count, seconds: seconds)) }
            return results
        }
    }

    /// `count` loopback calls carrying what the room carried: each caller sends its own tone and
    /// test pattern (encoding them), each callee decodes both.
    static func p2p(calls count: Int, seconds: Double) async throws -> BenchResult {
        ProcessUsage.trimHeap()
        let residentBefore = ProcessUsage.residentBytes()
        let calls = try await ConnectionsScenario.connectAll(count, video: true)
        var playbacks: [Playback] = []
        var decodedVideo: [Task<Int, Never>] = []
        for call in calls {
            for transceiver in await call.offerer.transceivers {
                guard let track = transceiver.sender.track else { continue }
                playbacks.append(track.kind == .audio ? track.play(ToneGenerator()) : track.play(TestPatternSource()))
            }
            for transceiver in await call.answerer.transceivers {
                let track = transceiver.receiver.track
                if track.kind == .audio {
                    track.setAudioSink { _ in }
                } else {
                    let frames = track.frames()
                    decodedVideo.append(Task { await frames.reduce(0) { count, _ in count + 1 } })
                }
            }
        }
        try await Task.sleep(for: .seconds(2))
        let usage = try await measure(seconds: seconds)
        let resident = ProcessUsage.residentBytes()
        for playback in playbacks { playback.stop() }
        for call in calls { await call.close() }
        var video = 0
        for task in decodedVideo { video += await task.value }
        let streams = 2 * count
        return result(
            "p2p-\(count)",
            profile: "p2p-loopback",
            usage: usage,
            frames: video,
            extra: [
                ("calls", Double(count)),
                ("cpu_cores_used", usage.cores),
                ("cpu_percent_per_stream", usage.cores / Double(streams) * 100),
                ("rss_kb_per_stream", Double(resident - residentBefore) / 1024 / Double(streams)),
            ],
            note: "\(count) P2P calls, each caller encoding its own Opus + VP8 640x480, each callee decoding both"
        )
    }

    /// A row: `frames` decoded (as packets received) over the window `usage` measured.
    static func result(
        _ scenario: String,
        profile: String,
        usage: (cores: Double, user: Double, system: Double, seconds: Double),
        frames: Int,
        extra: [(name: String, value: Double?)],
        note: String
    ) -> BenchResult {
        BenchResult(
            impl: "swiftrtc",
            profile: profile,
            scenario: scenario,
            packetsSent: 0,
            packetsReceived: frames,
            seconds: usage.seconds,
            cpuUserSeconds: usage.user,
            cpuSystemSeconds: usage.system,
            maxRSSMegabytes: ProcessUsage.now().maxRSSMegabytes,
            payloadBytes: 0,
            extra: extra,
            note: note
        )
    }

    /// Takes every track a listener receives: audio into a sink, video frames read (both decoded).
    static func decodeEverything(_ listener: ConferenceSession) -> Task<Void, Never> {
        let events = listener.events
        return Task {
            var readers: [Task<Void, Never>] = []
            for await event in events {
                guard case .remoteTrack(_, let track) = event else { continue }
                if track.kind == .audio {
                    track.setAudioSink { _ in }
                } else {
                    let frames = track.frames()
                    readers.append(Task { for await _ in frames {} })
                }
            }
            for reader in readers { reader.cancel() }
        }
    }

    /// Frames the listeners decoded so far.
    static func decoded(_ listeners: [ConferenceSession]) async -> (audio: Int, video: Int, frames: Int) {
        var audio = 0, video = 0
        for listener in listeners {
            for row in await listener.publisherStats() {
                audio += row.audioFramesDecoded
                video += row.videoFramesDecoded
            }
        }
        return (audio, video, audio + video)
    }

    /// This process's CPU over `seconds`.
    static func measure(seconds: Double) async throws -> (cores: Double, user: Double, system: Double, seconds: Double)
    {
        let usage = ProcessUsage.now()
        let start = ContinuousClock.now
        try await Task.sleep(for: .seconds(seconds))
        let cpu = ProcessUsage.now().since(usage)
        let elapsed = (ContinuousClock.now - start).seconds
        return ((cpu.user + cpu.system) / elapsed, cpu.user, cpu.system, elapsed)
    }
}
