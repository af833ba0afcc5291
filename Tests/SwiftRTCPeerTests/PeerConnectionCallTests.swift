import Foundation
import SwiftRTCCore
import SwiftRTCICE
import SwiftRTCMedia
import SwiftRTCRTP
import Synchronization
import TestScheduling
import Testing

@testable import SwiftRTCPeer

@Suite(.serialized, .realTime) struct PeerConnectionCallTests {
    /// A 3 s call between two connections: audio tone and test pattern both ways, decoded
    /// on both sides, stats and statsString plausible.
    @Test func loopbackCallCarriesAudioAndVideoBothWays() async throws {
        let call = try await LoopbackCall.start()
        #expect(call.connectedAfter != nil, "both sides connected")
        #expect(await call.waitForMedia())
        // The PCM sink of the remote audio track, and stats on a timer.
        let sunk = Mutex(0)
        try #require(await call.answerer.transceivers.first { $0.kind == .audio }).receiver.track.setAudioSink {
            frame in
            sunk.withLock { $0 += frame.samplesPerChannel }
        }
        let videoReceiver = try #require(await call.answerer.transceivers.first { $0.kind == .video }).receiver
        let encodedFrames = videoReceiver.encodedFrames()
        let firstEncoded = Task { () -> EncodedFrame? in
            for await frame in encodedFrames { return frame }
            return nil
        }
        let reports = await call.offerer.statsReports(interval: .milliseconds(500))
        let timed = Task { () -> [Double] in
            var packets: [Double] = []
            for await report in reports {
                packets.append(report.first(.outboundRTP, kind: "video")?.number("packetsSent") ?? 0)
                if packets.count == 4 { break }
            }
            return packets
        }
        try await Task.sleep(for: .seconds(3))
        let timedPackets = await timed.value
        let encoded = await firstEncoded.value
        #expect(encoded?.codec == .vp8 && (encoded?.data.count ?? 0) > 0, "encoded frames before decoding")
        #expect(
            timedPackets.count == 4 && timedPackets == timedPackets.sorted()
                && timedPackets.last! > timedPackets.first!,
            "\(timedPackets)"
        )
        #expect(sunk.withLock { $0 } > 48_000, "the audio sink got over a second of PCM")
        let offererStats = await call.offerer.stats()
        let answererStats = await call.answerer.stats()
        let statsString = await call.offerer.statsString()
        let iceMs = await call.offerer.iceConnectedAfter
        let dtlsMs = await call.offerer.dtlsConnectedAfter
        await call.close()
        print("connect: ICE \(String(describing: iceMs)) DTLS \(String(describing: dtlsMs))")
        print(statsString)

        for (name, media, frequency) in [
            ("offerer", call.offererMedia, 660.0), ("answerer", call.answererMedia, 440.0),
        ] {
            let v = media.values.withLock { $0 }
            print(
                "\(name): audio frames \(v.audioFrames) rms \(media.rms) f \(media.frequency) video frames \(v.videoFrames) \(v.width)x\(v.height) counters \(v.counters.prefix(3))...\(v.counters.suffix(3))"
            )
            #expect(v.audioFrames > 50, "\(name) decoded audio")
            #expect(media.rms > 0.05, "\(name) audio RMS")
            #expect(
                abs(media.frequency - frequency) < frequency * 0.1,
                "\(name) hears \(frequency) Hz, measured \(media.frequency)"
            )
            #expect(v.videoFrames > 20, "\(name) decoded video (15 fps)")
            #expect(v.width == 160 && v.height == 120)
            #expect(v.counters.count > 15, "frame counters readable")
            #expect(
                v.counters == v.counters.sorted() && (v.counters.last ?? 0) > (v.counters.first ?? 0),
                "frame counter increases"
            )
        }

        for report in [offererStats, answererStats] {
            let pair = try #require(report.all(.candidatePair).first)
            #expect(pair.string("localCandidateId").flatMap { report.stats[$0]?.string("candidateType") } == "host")
            for kind in ["audio", "video"] {
                let outbound = try #require(report.first(.outboundRTP, kind: kind))
                let inbound = try #require(report.first(.inboundRTP, kind: kind))
                let remoteInbound = try #require(report.first(.remoteInboundRTP, kind: kind))
                // 3 s of 20 ms audio, or of 15 fps video (one packet a frame at 160x120).
                #expect((outbound.number("packetsSent") ?? 0) > (kind == "audio" ? 100 : 30))
                #expect((inbound.number("packetsReceived") ?? 0) > (kind == "audio" ? 100 : 30))
                #expect((inbound.number("framesDecoded") ?? 0) > 20)
                let rtt = try #require(remoteInbound.number("roundTripTime"), "RTT from RTCP for \(kind)")
                #expect(rtt >= 0 && rtt < 0.5)
                #expect(
                    report.all(.codec).contains {
                        $0.string("mimeType") == (kind == "audio" ? "audio/opus" : "video/VP8")
                    }
                )
            }
            #expect(report.first(.mediaSource, kind: "video")?.number("width") == 160)
            // 15 fps over the last whole second, though stats were taken a moment before.
            let decodedFPS = report.first(.inboundRTP, kind: "video")?.number("framesPerSecond") ?? 0
            let sentFPS = report.first(.outboundRTP, kind: "video")?.number("framesPerSecond") ?? 0
            #expect(decodedFPS > 7 && decodedFPS < 25 && sentFPS > 7 && sentFPS < 25, "\(decodedFPS) \(sentFPS)")
        }

        let lines = statsString.split(separator: "\n").map(String.init)
        let patterns = [
            #"^CN \d+ms \| host->(host|prflx)/udp \| \(s\)\d+Kbps \| \(r\)\d+Kbps$"#,
            #"^VS \(input\) 160x120@[1-9]\d*fps \| \(sent\) 160x120@[1-9]\d*fps$"#,
            #"^VS \(enc\) \d+(K)?bps/\d+Kbps \| \(sent\) \d+Kbps/\d+Kbps \| \d+ms \| VP8$"#,
            #"^AvgQP \(past 30 encoded frames\) = \d+$"#,
            #"^VR \(recv\) 160x120@[1-9]\d*fps \| \(decoded\)[1-9]\d* \| \(output\)[1-9]\d*fps \| \d+Kbps/\d+bps \| \d+ms$"#,
            #"^AS \d+Kbps \| opus$"#,
            #"^AR \d+Kbps \| opus \| \d+ms \| \(expandrate\)\d+\.\d+$"#,
            #"^Packets lost: VS \d+ \| VR \d+ \| AS \d+ \| AR \d+$"#,
        ]
        #expect(lines.count == patterns.count, "\(lines)")
        for (line, pattern) in zip(lines, patterns) {
            #expect(line.range(of: pattern, options: .regularExpression) != nil, "\(line) ~ \(pattern)")
        }
    }

    /// `sendersDrained(within:)` keeps its bound: while the video track still plays, its frames
    /// never end and the wait gives up at the timeout (it used to wait for the sending task
    /// itself, for ever); once the tracks stop, what they held is sent and the wait succeeds.
    @Test func sendersDrainedGivesUpAtItsTimeout() async throws {
        let call = try await LoopbackCall.start()
        #expect(call.connectedAfter != nil, "both sides connected")
        #expect(await call.waitForMedia())
        let started = ContinuousClock.now
        let playing = await call.offerer.sendersDrained(within: .milliseconds(300))
        let waited = ContinuousClock.now - started
        #expect(!playing, "a playing track is never drained")
        #expect(waited < .seconds(5), "the wait ended at its timeout, not with the track: \(waited)")
        for track in call.tracks { track.stop() }
        #expect(await call.offerer.sendersDrained(within: .seconds(5)), "stopped tracks drain")
        await call.close()
    }
}
