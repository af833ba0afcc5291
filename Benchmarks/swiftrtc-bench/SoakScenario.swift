import Foundation
import SwiftRTCBenchReport
import SwiftRTCCodecs
import SwiftRTCCore
import SwiftRTCMedia
import SwiftRTCPeer
import SwiftRTCRTP
import Synchronization

/// A long call, or many: N loopback calls held for a given time with media both ways (Opus
/// 20 ms, and with `video` VP8 320x240 at 30 fps), every received track decoded, and with
/// `record` the answerer's side recorded as a bot would (a WebM per call, or Ogg for audio).
/// Resident memory and heap in use are sampled every minute; the result is their growth per
/// call over the run, after the first minute (caches, jitter buffers and histories fill up
/// first), and the least-squares slope per call and hour.
enum SoakScenario {
    struct Sample {
        let minute: Double
        let residentBytes: Int
        let heapBytes: Int
        let packetsReceived: Int
    }

    /// One VP8 group of pictures, 320x240 at 30 fps and 300 kbit/s: a keyframe then 29 delta
    /// frames, so that looping it is a keyframe every second.
    static func vp8Loop() throws -> [EncodedFrame] {
        let encoder = try VP8Encoder(
            configuration: VP8EncoderConfiguration(width: 320, height: 240, targetBitrate: 300_000)
        )
        var source = TestPatternSource(width: 320, height: 240, framesPerSecond: 30)
        var frames: [EncodedFrame] = []
        for index in 0..<30 {
            guard let picture = source.readFrame() else { break }
            if index == 0 { encoder.requestKeyframe() }
            if let frame = try encoder.encode(picture) { frames.append(frame) }
        }
        guard frames.first?.isKeyframe == true else { throw BenchError("VP8 encoder gave no keyframe first") }
        return frames
    }

    static func run(calls count: Int, minutes: Double, video: Bool, record: Bool) async throws -> BenchResult {
        let opus = try ConnectionsScenario.opusPacket()
        let vp8 = video ? try vp8Loop() : []
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swiftrtc-soak-\(getpid())")
        if record { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        defer { if record { try? FileManager.default.removeItem(at: folder) } }

        let calls = try await ConnectionsScenario.connectAll(count, video: video)
        let profile = await calls.first?.profile() ?? "unknown"

        // What each side sends, and takes: every remote track decoded (an audio sink, video
        // frames counted), and with `record` the answerer's remote tracks recorded instead.
        var audioTracks: [MediaStreamTrack] = [], videoTracks: [MediaStreamTrack] = []
        var recorders: [MediaRecorder] = []
        let decoded = DecodedCount()
        var consumers: [Task<Void, Never>] = []
        for (number, call) in calls.enumerated() {
            for pc in [call.offerer, call.answerer] {
                for transceiver in await pc.transceivers {
                    if let track = transceiver.sender.track {
                        if track.kind == .audio { audioTracks.append(track) } else { videoTracks.append(track) }
                    }
                }
            }
            let remote = await call.answerer.transceivers.map(\.receiver.track)
            if record {
                let file = folder.appendingPathComponent("call-\(number).\(video ? "webm" : "ogg")")
                recorders.append(try MediaRecorder(tracks: remote, path: file.path))
            }
            let decodedTracks = await (record ? [] : remote) + call.offerer.transceivers.map(\.receiver.track)
            for track in decodedTracks {
                if track.kind == .audio {
                    track.setAudioSink { _ in decoded.add() }
                } else {
                    let frames = track.frames()
                    consumers.append(Task { for await _ in frames { decoded.add() } })
                }
            }
        }

        ProcessUsage.trimHeap()
        let usage = ProcessUsage.now()
        let start = ContinuousClock.now
        let end = start + .milliseconds(Int64(minutes * 60_000))
        let audioSender = Task {
            var index = 0
            var late = 0
            while ContinuousClock.now < end, !Task.isCancelled {
                var frame = opus
                frame.timestamp = UInt32(truncatingIfNeeded: index &* 960)
                for track in audioTracks { track.push(.encoded(frame)) }
                index += 1
                let next = start + .milliseconds(20 * index)
                if ContinuousClock.now > next + .milliseconds(20) { late += 1 }
                try? await Task.sleep(until: next, clock: .continuous)
            }
            return late
        }
        let videoSender = Task {
            var index = 0
            while video, ContinuousClock.now < end, !Task.isCancelled {
                var frame = vp8[index % vp8.count]
                frame.timestamp = UInt32(truncatingIfNeeded: index &* 3000)
                for track in videoTracks { track.push(.encoded(frame)) }
                index += 1
                try? await Task.sleep(until: start + .microseconds(Int64(index) * 33_333), clock: .continuous)
            }
        }

        var samples: [Sample] = []
        func sample() async {
            let received = await ConnectionsScenario.counts(calls).received
            let heap = ProcessUsage.heapInUseBytes(), resident = ProcessUsage.residentBytes()
            let minute = (ContinuousClock.now - start).seconds / 60
            samples.append(Sample(minute: minute, residentBytes: resident, heapBytes: heap, packetsReceived: received))
            SwiftRTCBench.progress(
                "  soak minute \(minute.formatted(.number.precision(.fractionLength(1)))): resident \(megabytes(resident)) MB, heap in use \(megabytes(heap)) MB, RTP received \(received), frames decoded \(decoded.value)"
            )
        }
        await sample()
        var minute = 1
        while ContinuousClock.now < end {
            try await Task.sleep(until: min(end, start + .seconds(60 * minute)), clock: .continuous)
            minute += 1
            await sample()
        }
        let late = await audioSender.value
        await videoSender.value
        let elapsed = (ContinuousClock.now - start).seconds
        let cpu = ProcessUsage.now().since(usage)
        let sent = await ConnectionsScenario.counts(calls).sent
        var recordedBytes = 0
        for recorder in recorders {
            for file in try await recorder.stop() {
                recordedBytes += (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
            }
        }
        for consumer in consumers { consumer.cancel() }
        await ConnectionsScenario.closeAll(calls)

        // Growth from the first full minute on (the first sample is taken as media starts).
        let measured = samples.count > 2 ? Array(samples.dropFirst()) : samples
        let first = measured.first!, last = measured.last!
        let perCall = { (bytes: Int) in Double(bytes) / 1024 / Double(count) }
        let hours = max((last.minute - first.minute) / 60, 1e-9)
        let what = video ? "Opus 20 ms + VP8 320x240 30 fps" : "Opus 20 ms"
        return BenchResult(
            impl: "swiftrtc",
            profile: profile,
            scenario: "soak-\(count)\(video ? "-av" : "")\(record ? "-record" : "")",
            packetsSent: sent,
            packetsReceived: last.packetsReceived,
            seconds: elapsed,
            cpuUserSeconds: cpu.user,
            cpuSystemSeconds: cpu.system,
            maxRSSMegabytes: ProcessUsage.now().maxRSSMegabytes,
            payloadBytes: opus.data.count,
            extra: [
                ("calls", Double(count)),
                ("minutes", elapsed / 60),
                ("rss_mb_first", Double(first.residentBytes) / 1_048_576),
                ("rss_mb_last", Double(last.residentBytes) / 1_048_576),
                ("rss_growth_kb_per_call", perCall(last.residentBytes - first.residentBytes)),
                ("rss_slope_kb_per_call_hour", slope(measured.map { ($0.minute, perCall($0.residentBytes)) }) * 60),
                ("heap_growth_kb_per_call", perCall(last.heapBytes - first.heapBytes)),
                ("heap_slope_kb_per_call_hour", slope(measured.map { ($0.minute, perCall($0.heapBytes)) }) * 60),
                ("growth_kb_per_call_hour", perCall(last.residentBytes - first.residentBytes) / hours),
                ("frames_decoded", Double(decoded.value)),
                ("recorded_mb", record ? Double(recordedBytes) / 1_048_576 : nil),
                ("late_ticks", Double(late)),
                ("cpu_cores_used", (cpu.user + cpu.system) / elapsed),
            ],
            note:
                "\(count) calls, \(what) both ways\(record ? ", recorded" : ""); samples (minute: resident MB / heap MB): "
                + measured.map {
                    "\(Int($0.minute.rounded())): \(megabytes($0.residentBytes))/\(megabytes($0.heapBytes))"
                }.joined(separator: ", ")
        )
    }

    static func megabytes(_ bytes: Int) -> String {
        (Double(bytes) / 1_048_576).formatted(.number.precision(.fractionLength(1)))
    }

    /// The least-squares slope of `points` (y per x); 0 with fewer than two.
    static func slope(_ points: [(x: Double, y: Double)]) -> Double {
        guard points.count > 1 else { return 0 }
        let n = Double(points.count)
        let meanX = points.map(\.x).reduce(0, +) / n, meanY = points.map(\.y).reduce(0, +) / n
        let covariance = points.map { ($0.x - meanX) * ($0.y - meanY) }.reduce(0, +)
        let variance = points.map { ($0.x - meanX) * ($0.x - meanX) }.reduce(0, +)
        return variance > 0 ? covariance / variance : 0
    }
}

/// Frames decoded over all calls, counted from the decoding threads.
final class DecodedCount: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
