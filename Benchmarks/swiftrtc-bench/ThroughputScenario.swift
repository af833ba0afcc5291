import SwiftRTCBenchReport
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCPeer
import SwiftRTCRTP

/// Throughput through one connected ``PeerConnection`` pair over loopback (ICE + DTLS + SRTP
/// in the profile the pair negotiates: AES-CM-80 with Debian 12's GnuTLS, which knows no GCM
/// profile; GCM where the GnuTLS in use can negotiate it), counting what the receiving
/// application gets in its synchronous frame sink (``RTPReceiver/setEncodedFrameSink(_:)``,
/// on the transport thread, as a relay or recorder would take them).
///
/// - `throughput`: RTP packets with 1200-byte payloads as fast as the stack carries them
///   without loss: the sender stays at most a window ahead of what the receiving application
///   got. The payload is typed Opus (one packet = one frame, no packetizer cost) and starts
///   with an Opus TOC that is invalid (code 3, zero frames), and nobody takes the decoded
///   audio, so the figure is the transport's (track → sender on the pushing task → RTP +
///   extensions → SRTP → libnice → demux → SRTP → jitter buffer → application), not Opus's.
/// - `throughput-vp8`: pre-encoded VP8 frames (640x480 test pattern) through the VP8
///   packetizer (1200-byte MTU), the sender's pacing, the depacketizer and the decoder.
enum ThroughputScenario {
    static let payloadBytes = 1200

    static func runRTP(seconds: Double) async throws -> BenchResult {
        let call = try await LoopbackCall.connect { offerer, answerer in
            try await offerer.addTransceiver(.audio, direction: .sendonly, track: MediaStreamTrack(kind: .audio))
            _ = answerer
        }
        guard let track = await call.offerer.transceivers.first?.sender.track,
            let receiver = await call.answerer.transceivers.first?.receiver
        else { throw BenchError("no transceivers") }
        var data = [UInt8](repeating: 0xAB, count: payloadBytes)
        data[0] = 0x03  // Opus TOC: config 0, mono, code 3 (RFC 6716 §3.2.5) ...
        data[1] = 0x00  // ... with 0 frames: invalid, so the decoder rejects it without work.
        let template = EncodedFrame(codec: .opus, data: data, timestamp: 0, isKeyframe: true)
        let result = try await measure(seconds: seconds, window: 16, receiver: receiver) { index in
            var frame = template
            frame.timestamp = UInt32(truncatingIfNeeded: index &* 960)
            track.push(.encoded(frame))
        }
        let profile = await call.profile()
        await call.close()
        return BenchResult(
            impl: "swiftrtc",
            profile: profile,
            scenario: "throughput",
            packetsSent: result.sent,
            packetsReceived: result.received,
            seconds: result.seconds,
            cpuUserSeconds: result.cpu.user,
            cpuSystemSeconds: result.cpu.system,
            maxRSSMegabytes: ProcessUsage.now().maxRSSMegabytes,
            payloadBytes: payloadBytes,
            extra: [
                (
                    "cpu_us_per_packet",
                    result.received > 0 ? (result.cpu.user + result.cpu.system) / Double(result.received) * 1e6 : nil
                )
            ],
            note: "PeerConnection pair, window \(16) packets"
        )
    }

    /// Pre-encoded VP8 frames: 640x480 test pattern with noise over it (a plain pattern
    /// compresses to a few hundred bytes), all keyframes so that the sequence can loop, at
    /// about `bitrate` (30 fps).
    static func encodeVP8(count: Int = 30, bitrate: Int = 20_000_000) throws -> [EncodedFrame] {
        let encoder = try VP8Encoder(
            configuration: VP8EncoderConfiguration(width: 640, height: 480, targetBitrate: bitrate, speed: -8)
        )
        var source = TestPatternSource(width: 640, height: 480, framesPerSecond: 30)
        var state: UInt32 = 0x1234_5678  // xorshift32: cheap noise, the same every run
        var frames: [EncodedFrame] = []
        for _ in 0..<count {
            guard var picture = source.readFrame() else { break }
            for i in stride(from: 0, to: picture.y.count, by: 2) {
                state ^= state << 13
                state ^= state >> 17
                state ^= state << 5
                picture.y[i] &+= UInt8(truncatingIfNeeded: state & 31)
            }
            encoder.requestKeyframe()
            if let frame = try encoder.encode(picture) { frames.append(frame) }
        }
        guard frames.first?.isKeyframe == true else { throw BenchError("VP8 encoder gave no keyframe first") }
        return frames
    }

    static func runVP8(seconds: Double) async throws -> BenchResult {
        let frames = try encodeVP8()
        let call = try await LoopbackCall.connect { offerer, answerer in
            try await offerer.addTransceiver(.video, direction: .sendonly, track: MediaStreamTrack(kind: .video))
            _ = answerer
        }
        guard let track = await call.offerer.transceivers.first?.sender.track,
            let receiver = await call.answerer.transceivers.first?.receiver
        else { throw BenchError("no transceivers") }
        let result = try await measure(seconds: seconds, window: 3, receiver: receiver) { index in
            var frame = frames[index % frames.count]
            frame.timestamp = UInt32(truncatingIfNeeded: index &* 3000)
            track.push(.encoded(frame))
        }
        let sent = await call.offerer.stats().first(.outboundRTP),
            received = await call.answerer.stats().first(.inboundRTP)
        let profile = await call.profile()
        await call.close()
        let packetsSent = Int(sent?.number("packetsSent") ?? 0),
            packetsReceived = Int(received?.number("packetsReceived") ?? 0)
        let bytes = received?.number("bytesReceived") ?? 0
        return BenchResult(
            impl: "swiftrtc",
            profile: profile,
            scenario: "throughput-vp8",
            packetsSent: packetsSent,
            packetsReceived: packetsReceived,
            seconds: result.seconds,
            cpuUserSeconds: result.cpu.user,
            cpuSystemSeconds: result.cpu.system,
            maxRSSMegabytes: ProcessUsage.now().maxRSSMegabytes,
            payloadBytes: packetsReceived > 0 ? Int(bytes) / packetsReceived : 0,
            extra: [
                ("frames_sent", Double(result.sent)), ("frames_received", Double(result.received)),
                ("frames_per_s", Double(result.received) / result.seconds),
            ],
            note: "640x480 VP8 keyframes pre-encoded, window 3 frames, sender pacing on"
        )
    }

    struct Measured {
        var sent: Int
        var received: Int
        var seconds: Double
        var cpu: (user: Double, system: Double)
    }

    /// Pushes frames (`push(index)`) for `seconds`, at most `window` ahead of the frames
    /// `receiver`'s frame sink got; then waits for the last to arrive.
    static func measure(
        seconds: Double,
        window size: Int,
        receiver: RTPReceiver,
        push: @escaping @Sendable (Int) -> Void
    ) async throws -> Measured {
        let window = Window(size: size)
        receiver.setEncodedFrameSink { _ in window.received() }
        defer { receiver.setEncodedFrameSink(nil) }
        // The first frames prime the path: the receiver's jitter buffer holds a stream's first
        // packets for its maximum wait (for earlier ones that might come late), until the next
        // packet arrives. The run is timed from the first arrival; the few frames pushed
        // before it are counted as sent and received like the others.
        var index = 0
        let primeDeadline = ContinuousClock.now + .seconds(5)
        while window.counts.received == 0 {
            guard ContinuousClock.now < primeDeadline else { throw BenchError("the first frame never arrived") }
            window.countSent()
            push(index)
            index += 1
            try await Task.sleep(for: .milliseconds(20))
        }
        // A packet lost in flight would hold the window: give up on it after 200 ms of silence.
        let watchdog = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                if ContinuousClock.now - window.lastReceived > .milliseconds(200) { window.abandonInFlight() }
            }
        }
        defer { watchdog.cancel() }
        let usage = ProcessUsage.now()
        let start = ContinuousClock.now
        window.restartClock()
        let end = start + .milliseconds(Int64(seconds * 1000))
        while ContinuousClock.now < end {
            await window.acquire()
            push(index)
            index += 1
        }
        window.finish()
        // Drain: what is still in flight arrives within a few ms, or is lost.
        var previous = -1
        while window.counts.received != previous {
            previous = window.counts.received
            try await Task.sleep(for: .milliseconds(100))
        }
        let elapsed = window.lastReceived - start
        let cpu = ProcessUsage.now().since(usage)
        return Measured(sent: index, received: window.counts.received, seconds: max(elapsed.seconds, 1e-3), cpu: cpu)
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }
}
