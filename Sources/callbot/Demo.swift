import ArgumentParser
import Foundation
import Synchronization
import SwiftRTC

/// `callbot demo`: a call between two PeerConnections in this process, over loopback: a
/// tone and the test pattern both ways, statsString printed live, a summary at the end.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make a loopback audio+video call between two peer connections in this process and print live stats.")

    @OptionGroup var global: GlobalOptions

    @Option(help: "How long the call lasts, in seconds.")
    var duration: Double = 10

    @Option(help: "Seconds between two statsString prints.")
    var statsInterval: Double = 2

    @Option(help: "Video width of the test pattern.")
    var width: Int = 640

    @Option(help: "Video height of the test pattern.")
    var height: Int = 480

    @Option(help: "Frames per second of the test pattern.")
    var fps: Int = 30

    @OptionGroup var bandwidth: BandwidthOptions

    func validate() throws {
        guard duration > 0, statsInterval > 0 else { throw ValidationError("--duration and --stats-interval must be positive") }
        guard width >= 16, height >= 16, width <= 4096, height <= 4096 else { throw ValidationError("--width/--height must be 16...4096") }
        guard (1...60).contains(fps) else { throw ValidationError("--fps must be 1...60") }
    }

    func run() async throws {
        global.apply()
        let configuration = bandwidth.apply(to: PeerConnection.Configuration(gatherAddresses: ["127.0.0.1"]))
        let caller = try PeerConnection(configuration: configuration)
        let callee = try PeerConnection(configuration: configuration)
        var tracks: [MediaStreamTrack] = []
        for (pc, frequency) in [(caller, 440.0), (callee, 660.0)] {
            let audio = MediaStreamTrack(kind: .audio)
            audio.play(ToneGenerator(frequency: frequency))
            let video = MediaStreamTrack(kind: .video)
            video.play(TestPatternSource(width: width, height: height, framesPerSecond: fps))
            try await pc.addTrack(audio)
            try await pc.addTrack(video)
            tracks += [audio, video]
        }
        let callerReceived = DemoTally(), calleeReceived = DemoTally()
        callerReceived.follow(await caller.remoteTracks())
        calleeReceived.follow(await callee.remoteTracks())

        // Signaling, in-process: offer/answer and trickled candidates, each side's candidates
        // passed on once the other side has its remote description (W3C: not before).
        let callerCandidates = await caller.localCandidates(), calleeCandidates = await callee.localCandidates()
        let offer = try await caller.createOffer()
        try await caller.setLocalDescription(offer)
        try await callee.setRemoteDescription(offer)
        let answer = try await callee.createAnswer()
        try await callee.setLocalDescription(answer)
        try await caller.setRemoteDescription(answer)
        let forwarders = [Self.forward(callerCandidates, to: callee), Self.forward(calleeCandidates, to: caller)]

        let connected = await Self.waitConnected(caller, timeout: .seconds(30))
        let iceTime = await caller.iceConnectedAfter, dtlsTime = await caller.dtlsConnectedAfter
        if connected {
            print("demo: connected (ICE \(Self.ms(iceTime)), DTLS \(Self.ms(dtlsTime)) after start)")
        } else {
            print("demo: not connected: \(await caller.connectionState.rawValue)")
        }

        // One statsString per interval, then what is left of the duration.
        let prints = connected ? max(1, Int(duration / statsInterval)) : 0
        for index in 0..<prints {
            try await Task.sleep(for: .milliseconds(Int(statsInterval * 1000)))
            print("--- caller, \(String(format: "%g", Double(index + 1) * statsInterval)) s ---")
            print(await caller.statsString())
            print("--- callee ---")
            print(await callee.statsString())
        }
        let rest = duration - Double(prints) * statsInterval
        if connected, rest > 0 { try await Task.sleep(for: .milliseconds(Int(rest * 1000))) }

        for track in tracks { track.stop() }
        for forwarder in forwarders { forwarder.cancel() }
        await caller.close()
        await callee.close()

        let a = callerReceived.values.withLock { $0 }, b = calleeReceived.values.withLock { $0 }
        print("demo: \(connected ? "connected" : "failed") | ICE \(Self.ms(iceTime)) | DTLS \(Self.ms(dtlsTime))"
            + " | caller decoded audio \(a.audioFrames) frames rms \(String(format: "%.3f", a.rms)), video \(a.videoFrames) frames \(a.width)x\(a.height)"
            + " | callee decoded audio \(b.audioFrames) frames rms \(String(format: "%.3f", b.rms)), video \(b.videoFrames) frames \(b.width)x\(b.height)")
        guard connected, a.audioFrames > 0, a.videoFrames > 0, b.audioFrames > 0, b.videoFrames > 0 else { throw ExitCode(1) }
    }

    static func ms(_ duration: Duration?) -> String {
        guard let duration else { return "-" }
        let (seconds, attoseconds) = duration.components
        return "\(Int(seconds * 1000 + attoseconds / 1_000_000_000_000_000))ms"
    }

    static func forward(_ candidates: AsyncStream<IceCandidateInit>, to peer: PeerConnection) -> Task<Void, Never> {
        Task {
            for await candidate in candidates { try? await peer.addIceCandidate(candidate) }
        }
    }

    static func waitConnected(_ pc: PeerConnection, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            switch await pc.connectionState {
            case .connected: return true
            case .failed, .closed: return false
            default: try? await Task.sleep(for: .milliseconds(10))
            }
        }
        return false
    }
}

/// What one side of the demo decoded.
final class DemoTally: Sendable {
    struct Values: Sendable {
        var audioFrames = 0
        var sumSquares = 0.0
        var samples = 0
        var videoFrames = 0
        var width = 0
        var height = 0
        var rms: Double { samples == 0 ? 0 : (sumSquares / Double(samples)).squareRoot() / 32768 }
    }

    let values = Mutex(Values())

    func follow(_ events: AsyncStream<TrackEvent>) {
        Task {
            for await event in events {
                let frames = event.track.frames()
                Task {
                    for await frame in frames {
                        switch frame {
                        case .audio(let audio):
                            let squares = audio.samples.reduce(0.0) { $0 + Double($1) * Double($1) }
                            self.values.withLock { $0.audioFrames += 1; $0.sumSquares += squares; $0.samples += audio.samples.count }
                        case .video(let video):
                            self.values.withLock { $0.videoFrames += 1; $0.width = video.width; $0.height = video.height }
                        case .encoded:
                            break
                        }
                    }
                }
            }
        }
    }
}
