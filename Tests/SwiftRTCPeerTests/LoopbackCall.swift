import Foundation
import SwiftRTCCodecs
import SwiftRTCICE
import SwiftRTCMedia
import SwiftRTCPeer
import SwiftRTCSDP
import Synchronization

/// What one side decoded from the other.
final class DecodedMedia: Sendable {
    struct Values: Sendable {
        var audioFrames = 0
        var audioSumSquares = 0.0
        var audioSamples = 0
        var zeroCrossings = 0
        var lastSample: Int16 = 0
        var videoFrames = 0
        var width = 0
        var height = 0
        var counters: [Int] = []
    }

    let values = Mutex(Values())
    private let tasks = Mutex<[Task<Void, Never>]>([])

    /// Records every remote track's decoded frames.
    func follow(_ events: AsyncStream<TrackEvent>) {
        let task = Task { [weak self] in
            for await event in events {
                let frames = event.track.frames()
                let follower = Task { [weak self] in
                    for await frame in frames { self?.record(frame) }
                }
                self?.tasks.withLock { $0.append(follower) }
            }
        }
        tasks.withLock { $0.append(task) }
    }

    func record(_ frame: MediaFrame) {
        switch frame {
        case .audio(let audio):
            values.withLock { v in
                v.audioFrames += 1
                for sample in audio.samples {
                    v.audioSumSquares += Double(sample) * Double(sample)
                    if (sample >= 0) != (v.lastSample >= 0) { v.zeroCrossings += 1 }
                    v.lastSample = sample
                }
                v.audioSamples += audio.samples.count
            }
        case .video(let video):
            let counter = TestPatternSource.readFrameCounter(from: video)
            values.withLock { v in
                v.videoFrames += 1
                v.width = video.width
                v.height = video.height
                if let counter { v.counters.append(counter) }
            }
        case .encoded:
            break
        }
    }

    /// RMS of the decoded audio, 0...1 of full scale.
    var rms: Double {
        values.withLock {
            $0.audioSamples == 0 ? 0 : ($0.audioSumSquares / Double($0.audioSamples)).squareRoot() / 32768
        }
    }

    /// The tone's frequency estimated from zero crossings (two per period), mono 48 kHz.
    var frequency: Double {
        values.withLock { $0.audioSamples == 0 ? 0 : Double($0.zeroCrossings) / 2 / (Double($0.audioSamples) / 48_000) }
    }

    deinit { tasks.withLock { for task in $0 { task.cancel() } } }
}

/// Two connections in one process, signaled in-process with trickle ICE.
struct LoopbackCall {
    /// Loopback gathering, on transport threads of the peer tests' own (the package's other
    /// ICE tests run on the shared ones in parallel).
    static let threads = TransportThreadPool(threadCount: 1, name: "peer-tests")
    static let configuration = PeerConnection.Configuration(gatherAddresses: ["127.0.0.1"], transportThreads: threads)

    let offerer: PeerConnection
    let answerer: PeerConnection
    let offererMedia: DecodedMedia
    let answererMedia: DecodedMedia
    let tracks: [MediaStreamTrack]
    let connectedAfter: Duration?

    /// Sets up the call: tone + test pattern both ways (`frequencies` per side), waits
    /// for both sides to connect (nil `connectedAfter` if they did not within 10 s).
    /// `configurations` replaces the default configuration per side; `munge` may edit the
    /// offer's SDP on its way to the answerer; with a `relay`, the two sides talk through it.
    static func start(
        frequencies: (Double, Double) = (440, 660),
        video: Bool = true,
        width: Int = 160,
        height: Int = 120,
        framesPerSecond: Int = 15,
        configurations: (PeerConnection.Configuration, PeerConnection.Configuration)? = nil,
        relay: UDPRelay? = nil,
        munge: @Sendable (String) -> String = { $0 }
    ) async throws -> LoopbackCall {
        let offerer = try PeerConnection(configuration: configurations?.0 ?? LoopbackCall.configuration)
        let answerer = try PeerConnection(configuration: configurations?.1 ?? LoopbackCall.configuration)
        var tracks: [MediaStreamTrack] = []
        for (pc, frequency) in [(offerer, frequencies.0), (answerer, frequencies.1)] {
            let audio = MediaStreamTrack(kind: .audio)
            audio.play(ToneGenerator(frequency: frequency, amplitude: 0.3))
            try await pc.addTrack(audio)
            tracks.append(audio)
            if video {
                let pattern = MediaStreamTrack(kind: .video)
                pattern.play(TestPatternSource(width: width, height: height, framesPerSecond: framesPerSecond))
                try await pc.addTrack(pattern)
                tracks.append(pattern)
            }
        }
        let offererMedia = DecodedMedia(), answererMedia = DecodedMedia()
        offererMedia.follow(await offerer.remoteTracks())
        answererMedia.follow(await answerer.remoteTracks())
        let start = ContinuousClock.now
        try await exchange(offerer: offerer, answerer: answerer, relay: relay, munge: munge)
        let offererConnected = await waitConnected(offerer)
        let answererConnected = await waitConnected(answerer)
        let connected = offererConnected && answererConnected
        if !connected {
            for (name, pc) in [("offerer", offerer), ("answerer", answerer)] {
                let transport = await pc.stats().all(.transport).first
                print(
                    "LoopbackCall: \(name) not connected: \(await pc.connectionState) ice \(await pc.iceConnectionState) transport \(transport?.values ?? [:])"
                )
            }
        }
        return LoopbackCall(
            offerer: offerer,
            answerer: answerer,
            offererMedia: offererMedia,
            answererMedia: answererMedia,
            tracks: tracks,
            connectedAfter: connected ? ContinuousClock.now - start : nil
        )
    }

    /// Offer/answer with candidates trickled both ways, each side's passed on once the other
    /// has its remote description. `answering` sees the answer before the answerer applies it
    /// (both transports exist then, and nothing is connected yet).
    static func exchange(
        offerer: PeerConnection,
        answerer: PeerConnection,
        relay: UDPRelay? = nil,
        munge: (String) -> String = { $0 },
        answering: (SignalingDescription) async throws -> Void = { _ in }
    ) async throws {
        // Through a relay, each side learns only the relay's candidates for the other.
        func candidatesOut(_ sdp: String) -> String {
            guard relay != nil else { return sdp }
            return sdp.components(separatedBy: "\r\n").filter { !$0.hasPrefix("a=candidate:") }
                .joined(separator: "\r\n")
        }
        let offererCandidates = await offerer.localCandidates(), answererCandidates = await answerer.localCandidates()
        let offer = try await offerer.createOffer()
        try await offerer.setLocalDescription(offer)
        try await answerer.setRemoteDescription(
            SignalingDescription(type: offer.type, sdp: candidatesOut(munge(offer.sdp)))
        )
        let answer = try await answerer.createAnswer()
        try await answering(answer)
        try await answerer.setLocalDescription(answer)
        try await offerer.setRemoteDescription(SignalingDescription(type: answer.type, sdp: candidatesOut(answer.sdp)))
        forward(offererCandidates, of: .offerer, to: answerer, through: relay)
        forward(answererCandidates, of: .answerer, to: offerer, through: relay)
    }

    static func forward(
        _ candidates: AsyncStream<IceCandidateInit>,
        of side: UDPRelay.Side = .offerer,
        to peer: PeerConnection,
        through relay: UDPRelay? = nil
    ) {
        Task {
            for await candidate in candidates {
                let given: IceCandidateInit? = if let relay { relay.rewrite(candidate, from: side) } else { candidate }
                guard let given else { continue }
                try? await peer.addIceCandidate(given)
            }
        }
    }

    /// Polls `condition` every 10 ms until it holds or `timeout` passes (generous: the whole
    /// package's tests run in parallel on two cores).
    static func wait(timeout: Duration = .seconds(20), until condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return await condition()
    }

    /// Waits until both sides decoded audio (and video, when sent).
    func waitForMedia(video: Bool = true) async -> Bool {
        await LoopbackCall.wait {
            [offererMedia, answererMedia].allSatisfy { media in
                media.values.withLock { $0.audioFrames > 0 && (!video || $0.videoFrames > 0) }
            }
        }
    }

    static func waitConnected(_ pc: PeerConnection, timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let state = await pc.connectionState
            if state == .connected { return true }
            if state == .failed || state == .closed { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    func close() async {
        for track in tracks { track.stop() }
        await offerer.close()
        await answerer.close()
    }
}
