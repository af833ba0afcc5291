import Foundation
import SwiftRTCBenchReport
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCPeer
import SwiftRTCRTP

/// N concurrent audio calls in this process: N loopback ``PeerConnection`` pairs (2N
/// connections, on the shared transport threads), each side sending a pre-encoded 20 ms Opus
/// packet every 20 ms (nobody takes the remote tracks, so nothing is decoded). Reports CPU per
/// call and per packet, RTP loss (packets the senders sent that the receivers did not count),
/// resident memory per call, and the ratio to the C loop of the same calls (`limit-calls-N`).
enum ConnectionsScenario {
    /// Calls set up at the same time (more only queue in the DTLS handshakes).
    static let setupConcurrency = 16

    /// One 20 ms Opus packet of a 440 Hz tone at 32 kbit/s.
    static func opusPacket() throws -> EncodedFrame {
        let encoder = try OpusEncoder()
        var tone = ToneGenerator(frequency: 440, amplitude: 0.3)
        var packet = try encoder.encode(tone.nextFrame(milliseconds: 20))
        for _ in 0..<4 { packet = try encoder.encode(tone.nextFrame(milliseconds: 20)) }
        return packet
    }

    /// Runs `count` calls for `seconds`; `limit` is the C loop's row for the same calls.
    static func run(calls count: Int, seconds: Double, limit: BenchResult) async throws -> BenchResult {
        let packet = try opusPacket()
        ProcessUsage.trimHeap()
        let residentBefore = ProcessUsage.residentBytes()
        let threadsBefore = ProcessUsage.threadCount()
        let setupStart = ContinuousClock.now
        let calls = try await connectAll(count)
        let setupSeconds = (ContinuousClock.now - setupStart).seconds
        var tracks: [MediaStreamTrack] = []
        for call in calls {
            for pc in [call.offerer, call.answerer] {
                if let track = await pc.transceivers.first?.sender.track { tracks.append(track) }
            }
        }
        let residentConnected = ProcessUsage.residentBytes()

        // Media: every 20 ms the same packet on every track (timestamps advancing), pushed by
        // one task per core (a track's audio is sent on the pushing thread, as an
        // application's per-call audio task would).
        let before = await counts(calls)
        let usage = ProcessUsage.now()
        let start = ContinuousClock.now
        let frames = Int((seconds * 50).rounded())
        let pushers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let shares = (0..<pushers).map { share in stride(from: share, to: tracks.count, by: pushers).map { tracks[$0] }
        }
        let (late, threadsDuringMedia) = try await withThrowingTaskGroup(of: (late: Int, threads: Int).self) { group in
            for (number, share) in shares.enumerated() {
                group.addTask {
                    var late = 0, threads = 0
                    for index in 0..<frames {
                        var frame = packet
                        frame.timestamp = UInt32(truncatingIfNeeded: index &* 960)
                        for track in share { track.push(.encoded(frame)) }
                        if number == 0, index == frames / 2 { threads = ProcessUsage.threadCount() }
                        let next = start + .milliseconds(20 * (index + 1))
                        if ContinuousClock.now > next + .milliseconds(20) { late += 1 }
                        try await Task.sleep(until: next, clock: .continuous)
                    }
                    return (late, threads)
                }
            }
            var late = 0, threads = 0
            for try await result in group {
                late = max(late, result.late)
                threads = max(threads, result.threads)
            }
            return (late, threads)
        }
        let pushed = frames * tracks.count
        let elapsed = (ContinuousClock.now - start).seconds
        let cpu = ProcessUsage.now().since(usage)
        try await Task.sleep(for: .milliseconds(300))  // the last packets land
        let after = await counts(calls)
        let residentMedia = ProcessUsage.residentBytes()
        let profile = await calls.first?.profile() ?? "unknown"
        await closeAll(calls)

        // Sent: the frames the application pushed (a sender that falls behind drops the oldest
        // frames of its track, which counts as loss); received: RTP packets the receivers got.
        let rtpSent = after.sent - before.sent, received = after.received - before.received
        let sent = pushed
        let cpuPerCall = (cpu.user + cpu.system) / elapsed / Double(count)
        let cpuPerPacket = received > 0 ? (cpu.user + cpu.system) / Double(received) * 1e6 : nil
        let limitPerPacket = limit.extra.first { $0.name == "cpu_us_per_packet" }?.value ?? nil
        return BenchResult(
            impl: "swiftrtc",
            profile: profile,
            scenario: "connections-\(count)",
            packetsSent: sent,
            packetsReceived: received,
            seconds: elapsed,
            cpuUserSeconds: cpu.user,
            cpuSystemSeconds: cpu.system,
            maxRSSMegabytes: ProcessUsage.now().maxRSSMegabytes,
            payloadBytes: packet.data.count,
            extra: [
                ("calls", Double(count)),
                ("cpu_percent_per_call", cpuPerCall * 100),
                ("cpu_cores_used", (cpu.user + cpu.system) / elapsed),
                ("cpu_us_per_packet", cpuPerPacket),
                ("ratio_limit_cpu", cpuPerPacket.flatMap { ours in limitPerPacket.map { $0 / ours } }),
                ("loss_percent", sent > 0 ? Double(max(0, sent - received)) / Double(sent) * 100 : nil),
                ("rtp_sent", Double(rtpSent)),
                ("late_ticks", Double(late)),
                ("frames_decoded", Double(after.decoded - before.decoded)),
                ("rss_kb_per_call_idle", Double(residentConnected - residentBefore) / 1024 / Double(count)),
                ("rss_kb_per_call_media", Double(residentMedia - residentBefore) / 1024 / Double(count)),
                ("threads_during_media", Double(threadsDuringMedia)),
                ("threads_before", Double(threadsBefore)),
                ("setup_s", setupSeconds),
            ],
            note:
                "\(count) calls = \(2 * count) PeerConnections, Opus 20 ms both ways, \(packet.data.count)-byte packets"
        )
    }

    /// Connects `count` calls, `concurrency` at a time, each with an audio track both ways
    /// and with `video` a video track too (or, without `audioTracks`, an audio transceiver
    /// offered and nothing sent).
    static func connectAll(
        _ count: Int,
        audioTracks: Bool = true,
        video: Bool = false,
        concurrency: Int = setupConcurrency
    ) async throws -> [LoopbackCall] {
        try await withThrowingTaskGroup(of: LoopbackCall.self) { group in
            var calls: [LoopbackCall] = []
            var started = 0
            func startOne() {
                group.addTask {
                    try await LoopbackCall.connect(timeout: .seconds(60)) { offerer, answerer in
                        if audioTracks {
                            for pc in [offerer, answerer] {
                                try await pc.addTrack(MediaStreamTrack(kind: .audio))
                                if video { try await pc.addTrack(MediaStreamTrack(kind: .video)) }
                            }
                        } else {
                            try await offerer.addTransceiver(.audio)
                        }
                    }
                }
                started += 1
            }
            while started < min(count, concurrency) { startOne() }
            while let call = try await group.next() {
                calls.append(call)
                if started < count { startOne() }
            }
            return calls
        }
    }

    /// Closes every call, a few at a time.
    static func closeAll(_ calls: [LoopbackCall]) async {
        await withTaskGroup(of: Void.self) { group in
            for (index, call) in calls.enumerated() {
                if index >= setupConcurrency { await group.next() }
                group.addTask { await call.close() }
            }
        }
    }

    /// RTP packets sent and received, and frames decoded, over all calls (from stats).
    static func counts(_ calls: [LoopbackCall]) async -> (sent: Int, received: Int, decoded: Int) {
        var sent = 0, received = 0, decoded = 0
        for call in calls {
            for pc in [call.offerer, call.answerer] {
                let report = await pc.stats()
                for stats in report.all(.outboundRTP) { sent += Int(stats.number("packetsSent") ?? 0) }
                for stats in report.all(.inboundRTP) {
                    received += Int(stats.number("packetsReceived") ?? 0)
                    decoded += Int(stats.number("framesDecoded") ?? 0)
                }
            }
        }
        return (sent, received, decoded)
    }
}
