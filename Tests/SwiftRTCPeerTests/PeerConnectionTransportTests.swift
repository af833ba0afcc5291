import Foundation
import SwiftRTCCodecs
import SwiftRTCDTLS
import SwiftRTCMedia
import SwiftRTCSDP
import SwiftRTCSRTP
import Synchronization
import Testing

@testable import SwiftRTCPeer

/// Calls run one at a time (the whole package's tests share two cores): these are in the
/// serialized suite of the loopback call test.
extension PeerConnectionCallTests {
    static let configuration = LoopbackCall.configuration

    /// The answer carries another certificate's fingerprint: DTLS must fail the connection.
    @Test func fingerprintMismatchFailsTheConnection() async throws {
        let a = try PeerConnection(configuration: Self.configuration)
        let b = try PeerConnection(configuration: Self.configuration)
        try await a.addTransceiver(.audio)
        let aCandidates = await a.localCandidates(), bCandidates = await b.localCandidates()
        let offer = try await a.createOffer()
        try await a.setLocalDescription(offer)
        try await b.setRemoteDescription(offer)
        LoopbackCall.forward(aCandidates, to: b)
        let answer = try await b.createAnswer()
        try await b.setLocalDescription(answer)
        let other = try DtlsCertificate.generate().fingerprint.sdpValue
        let bFingerprint = await b.certificate.fingerprint.sdpValue
        #expect(answer.sdp.contains(bFingerprint))
        try await a.setRemoteDescription(
            SignalingDescription(type: .answer, sdp: answer.sdp.replacingOccurrences(of: bFingerprint, with: other))
        )
        LoopbackCall.forward(bCandidates, to: a)

        var aFailed = false
        for await state in await a.connectionStates() {
            if state == .failed {
                aFailed = true
                break
            }
            if state == .connected || state == .closed { break }
        }
        #expect(aFailed, "a connection with the wrong fingerprint fails")
        #expect(await a.connectionState == .failed)
        let dtls = await a.stats().all(.transport).first?.string("dtlsState") ?? ""
        #expect(dtls.contains("fingerprint"), "\(dtls)")
        await a.close()
        await b.close()
    }

    /// A fingerprint of a known hash function that does not parse fails the negotiation with
    /// an error that says so (it was dropped silently before, leaving no fingerprint to check).
    @Test func aMalformedFingerprintFailsTheNegotiation() async throws {
        let a = try PeerConnection(configuration: Self.configuration)
        let b = try PeerConnection(configuration: Self.configuration)
        try await a.addTransceiver(.audio)
        let offer = try await a.createOffer()
        try await a.setLocalDescription(offer)
        try await b.setRemoteDescription(offer)
        let answer = try await b.createAnswer()
        try await b.setLocalDescription(answer)
        let bFingerprint = await b.certificate.fingerprint.sdpValue
        let broken = "sha-256 " + String(repeating: "ZZ:", count: 31) + "ZZ"
        do {
            try await a.setRemoteDescription(
                SignalingDescription(
                    type: .answer,
                    sdp: answer.sdp.replacingOccurrences(of: bFingerprint, with: broken)
                )
            )
            Issue.record("an answer with a malformed fingerprint was taken")
        } catch {
            guard case let .invalidDescription(reason) = error else {
                Issue.record("expected invalidDescription, got \(error)")
                return
            }
            #expect(reason.contains("a=fingerprint"), "\(reason)")
        }
        await a.close()
        await b.close()
    }

    /// Non-trickle (as WHIP): the descriptions carry every candidate after gathering.
    @Test func nonTrickleDescriptionsCarryAllCandidates() async throws {
        let a = try PeerConnection(configuration: Self.configuration)
        let b = try PeerConnection(configuration: Self.configuration)
        try await a.addTransceiver(.audio, direction: .sendonly)
        try await a.setLocalDescription()
        await a.gatheringComplete()
        #expect(await a.iceGatheringState == .complete)
        let offer = try #require(await a.localDescription)
        let parsed = try SessionDescription(parsing: offer.sdp)
        #expect(parsed.media[0].candidates.contains { $0.address == "127.0.0.1" && $0.type == .host })
        #expect(parsed.media[0].endOfCandidates)
        // A late subscriber to the trickle gets what was gathered, then the end marker.
        var late: [IceCandidateInit] = []
        for await candidate in await a.localCandidates() {
            late.append(candidate)
            if candidate.isEndOfCandidates { break }
        }
        #expect(late.contains { $0.candidate.contains("127.0.0.1") && $0.sdpMid == "0" })
        #expect(late.last?.isEndOfCandidates == true)
        #expect(late.filter(\.isEndOfCandidates).count == 1)

        try await b.setRemoteDescription(offer)
        try await b.setLocalDescription()
        await b.gatheringComplete()
        let answer = try #require(await b.localDescription)
        #expect(answer.type == .answer)
        #expect(try SessionDescription(parsing: answer.sdp).media[0].candidates.isEmpty == false)
        try await a.setRemoteDescription(answer)
        #expect(await LoopbackCall.waitConnected(a))
        #expect(await LoopbackCall.waitConnected(b))
        await a.close()
        await b.close()
    }

    /// The transport stats name what DTLS negotiated (W3C `dtlsRole`, `dtlsCipher`,
    /// `srtpCipher`), and only once it has.
    @Test func transportStatsNameWhatDtlsNegotiated() async throws {
        let a = try PeerConnection(configuration: Self.configuration)
        let b = try PeerConnection(configuration: Self.configuration)
        try await a.addTransceiver(.audio, direction: .sendonly)
        try await LoopbackCall.exchange(offerer: a, answerer: b)
        let before = await b.stats().first(.transport)
        #expect(before?.string("srtpCipher") == nil || before?.string("dtlsState") == "connected")
        #expect(await LoopbackCall.waitConnected(a))
        #expect(await LoopbackCall.waitConnected(b))
        let offerer = try #require(await a.stats().first(.transport))
        let answerer = try #require(await b.stats().first(.transport))
        await a.close()
        await b.close()
        // The answer takes `a=setup:active` (JSEP §5.3.1): the answerer is the DTLS client.
        #expect(offerer.string("dtlsRole") == "server")
        #expect(answerer.string("dtlsRole") == "client")
        // Both ends prefer the same profiles: the first the GnuTLS in use can negotiate.
        let preferred = try #require(SrtpProfile.dtlsSupported.first)
        #expect(offerer.string("srtpCipher") == preferred.name)
        #expect(answerer.string("srtpCipher") == preferred.name)
        #expect(offerer.string("dtlsCipher") == "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256")
        #expect(answerer.string("dtlsCipher") == "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256")
    }

    /// A disabled local track sends silence (audio) and black frames (video).
    @Test func disabledTracksSendSilenceAndBlack() async throws {
        let call = try await LoopbackCall.start()
        #expect(call.connectedAfter != nil)
        #expect(await call.waitForMedia())
        for track in call.tracks { track.isEnabled = false }
        // Let what was encoded before (and a keyframe interval's worth of pattern) drain.
        try await Task.sleep(for: .milliseconds(500))
        let before = call.answererMedia.values.withLock { $0 }
        let silent = DecodedMedia()
        let black = BlackCheck()
        for receiver in await call.answerer.transceivers.map(\.receiver) {
            let frames = receiver.track.frames()
            Task {
                for await frame in frames {
                    silent.record(frame)
                    black.record(frame)
                }
            }
        }
        #expect(await LoopbackCall.wait { silent.values.withLock { $0.audioFrames > 20 && $0.videoFrames > 10 } })
        await call.close()
        let after = silent.values.withLock { $0 }
        #expect(before.audioFrames > 0)
        #expect(after.audioFrames > 20, "silence still flows")
        #expect(silent.rms < 0.001, "disabled audio is silent: \(silent.rms)")
        #expect(after.videoFrames > 10, "black frames still flow")
        #expect(black.maximumLuma.withLock { $0 } < 40, "disabled video is black")
        #expect(after.counters.isEmpty, "no test pattern counter in black frames")
    }

    /// A receiver that needs a keyframe sends a PLI; the sender's encoder makes one.
    @Test func pictureLossIndicationGetsAKeyframe() async throws {
        let call = try await LoopbackCall.start()
        #expect(call.connectedAfter != nil)
        #expect(await call.waitForMedia())
        let video = try #require(await call.offerer.transceivers.first { $0.kind == .video })
        let before = video.sender.counters.withLock { $0.keyFramesEncoded }
        let receiver = try #require(await call.answerer.transceivers.first { $0.kind == .video }?.receiver)
        receiver.keyframeNeeded.store(true, ordering: .relaxed)
        _ = await LoopbackCall.wait { video.sender.counters.withLock { $0.keyFramesEncoded > before } }
        let after = video.sender.counters.withLock { ($0.keyFramesEncoded, $0.pliReceived) }
        await call.close()
        #expect(after.1 >= 1, "the PLI arrived")
        #expect(after.0 > before, "a keyframe followed")
    }

    /// ICE restart: new credentials in the offer, the call stays connected.
    @Test func iceRestartKeepsTheCall() async throws {
        let call = try await LoopbackCall.start(video: false)
        #expect(call.connectedAfter != nil)
        #expect(await call.waitForMedia(video: false))
        let first = try SessionDescription(parsing: try #require(await call.offerer.localDescription).sdp)
        try await call.offerer.restartIce()
        let offer = try await call.offerer.createOffer()
        let parsed = try SessionDescription(parsing: offer.sdp)
        #expect(parsed.media[0].iceUfrag != first.media[0].iceUfrag)
        try await call.offerer.setLocalDescription(offer)
        try await call.answerer.setRemoteDescription(offer)
        let answer = try await call.answerer.createAnswer()
        try await call.answerer.setLocalDescription(answer)
        try await call.offerer.setRemoteDescription(answer)
        let frames = call.offererMedia.values.withLock { $0.audioFrames }
        let flowing = await LoopbackCall.wait { call.offererMedia.values.withLock { $0.audioFrames } > frames + 20 }
        #expect(flowing, "audio keeps flowing")
        if !flowing {
            print(
                "offerer after restart: \(await call.offerer.connectionState) \(call.offererMedia.values.withLock { $0.audioFrames }) frames"
            )
            print(
                await call.offerer.stats().stats.values.map { "\($0.id) \($0.values)" }.sorted().joined(separator: "\n")
            )
            print(
                await call.answerer.stats().stats.values.map { "\($0.id) \($0.values)" }.sorted().joined(
                    separator: "\n"
                )
            )
        }
        #expect(await call.offerer.connectionState == .connected)
        await call.close()
    }

    /// Open, connect and close 20 times: no threads or file descriptors left behind.
    @Test func closeFreesEverything() async throws {
        func count(_ path: String) -> Int { (try? FileManager.default.contentsOfDirectory(atPath: path).count) ?? -1 }
        func cycle() async throws {
            let call = try await LoopbackCall.start(video: false)
            #expect(call.connectedAfter != nil)
            await call.close()
            #expect(await call.offerer.connectionState == .closed)
            #expect(await call.offerer.signalingState == .closed)
        }
        try await cycle()  // warm up: the shared transport threads, libraries
        try await Task.sleep(for: .milliseconds(200))
        let fds = count("/proc/self/fd"), threads = count("/proc/self/task")
        for _ in 0..<20 { try await cycle() }
        try await Task.sleep(for: .milliseconds(500))
        let fdsAfter = count("/proc/self/fd"), threadsAfter = count("/proc/self/task")
        #expect(fdsAfter <= fds + 2, "file descriptors: \(fds) before, \(fdsAfter) after")
        #expect(threadsAfter <= threads + 2, "threads: \(threads) before, \(threadsAfter) after")
    }
}

/// The brightest luma seen in decoded video.
final class BlackCheck: Sendable {
    let maximumLuma = Mutex<UInt8>(0)

    func record(_ frame: MediaFrame) {
        guard case .video(let video) = frame else { return }
        let brightest = video.y.max() ?? 0
        maximumLuma.withLock { $0 = max($0, brightest) }
    }
}

extension PeerConnectionCallTests {
    /// replaceTrack mid-call: the stream goes on (no SRTP replays, no decoder restart) with
    /// the new track's audio.
    @Test func replaceTrackContinuesTheStream() async throws {
        let call = try await LoopbackCall.start(frequencies: (440, 660), video: false)
        #expect(call.connectedAfter != nil)
        #expect(await call.waitForMedia(video: false))
        let sender = try #require(await call.offerer.transceivers.first { $0.kind == .audio }?.sender)
        let louder = MediaStreamTrack(kind: .audio)
        louder.play(ToneGenerator(frequency: 1000, amplitude: 0.6))
        sender.replaceTrack(louder)
        #expect(sender.track === louder)
        let heard = DecodedMedia()
        let receiver = try #require(await call.answerer.transceivers.first { $0.kind == .audio }?.receiver)
        // Skip what was in flight, then listen.
        try await Task.sleep(for: .milliseconds(200))
        let frames = receiver.track.frames()
        let listener = Task { for await frame in frames { heard.record(frame) } }
        #expect(await LoopbackCall.wait { heard.values.withLock { $0.audioFrames } > 25 })
        listener.cancel()
        let replays = await call.answerer.stats().all(.transport).first?.number("srtpReplays")
        louder.stop()
        await call.close()
        #expect(replays == 0)
        #expect(abs(heard.frequency - 1000) < 100, "the new track's 1 kHz: \(heard.frequency)")
        #expect(heard.rms > 0.3)
    }
}

extension PeerConnectionCallTests {
    /// Pre-encoded frames pass through: VP8 encoded by the application, packetized and sent
    /// as they are, decoded by the peer.
    @Test func encodedFramesPassThrough() async throws {
        let configuration = LoopbackCall.configuration
        let a = try PeerConnection(configuration: configuration)
        let b = try PeerConnection(configuration: configuration)
        let track = MediaStreamTrack(kind: .video)
        try await a.addTrack(track)
        let heard = DecodedMedia()
        heard.follow(await b.remoteTracks())
        try await LoopbackCall.exchange(offerer: a, answerer: b)
        #expect(await LoopbackCall.waitConnected(a))
        let feeder = Task {
            let encoder = try VP8Encoder(
                configuration: VP8EncoderConfiguration(width: 160, height: 120, frameRate: 15, targetBitrate: 300_000)
            )
            var pattern = TestPatternSource(width: 160, height: 120, framesPerSecond: 15)
            while !Task.isCancelled, let frame = pattern.readFrame() {
                if let encoded = try encoder.encode(frame) { track.push(.encoded(encoded)) }
                try await Task.sleep(for: .milliseconds(66))
            }
        }
        #expect(await LoopbackCall.wait { heard.values.withLock { $0.videoFrames } > 15 })
        feeder.cancel()
        let v = heard.values.withLock { $0 }
        let outbound = await a.stats().first(.outboundRTP, kind: "video")
        await a.close()
        await b.close()
        #expect(v.width == 160 && v.height == 120)
        #expect(v.counters.count > 10 && v.counters == v.counters.sorted())
        #expect(outbound?.number("framesEncoded") == 0, "nothing was encoded by the sender")
        #expect((outbound?.number("packetsSent") ?? 0) > 15)
    }
}

extension PeerConnectionCallTests {
    /// The synchronous frame sink gets every frame, in order, on the transport thread (no
    /// task), the same frames the `encodedFrames()` stream hands to a task.
    @Test func encodedFrameSinkRunsOnTheTransportThread() async throws {
        let configuration = LoopbackCall.configuration
        let a = try PeerConnection(configuration: configuration)
        let b = try PeerConnection(configuration: configuration)
        let track = MediaStreamTrack(kind: .audio)
        try await a.addTrack(track)
        try await LoopbackCall.exchange(offerer: a, answerer: b)
        #expect(await LoopbackCall.waitConnected(a))
        let receiver = try #require(await b.transceivers.first?.receiver)
        let sunk = Mutex<(timestamps: [UInt32], inTask: Int)>(([], 0))
        receiver.setEncodedFrameSink { frame in
            let inTask = withUnsafeCurrentTask { $0 != nil }
            sunk.withLock {
                $0.timestamps.append(frame.timestamp)
                if inTask { $0.inTask += 1 }
            }
        }
        let streamed = receiver.encodedFrames()
        let reader = Task {
            var timestamps: [UInt32] = []
            for await frame in streamed {
                timestamps.append(frame.timestamp)
                if timestamps.count == 50 { break }
            }
            return timestamps
        }
        var tone = ToneGenerator(frequency: 440)
        let packet = try OpusEncoder().encode(tone.nextFrame(milliseconds: 20))
        for index in 0..<60 {
            var frame = packet
            frame.timestamp = UInt32(index * 960)
            track.push(.encoded(frame))
            try await Task.sleep(for: .milliseconds(20))
        }
        let fromStream = await reader.value
        #expect(await LoopbackCall.wait { sunk.withLock { $0.timestamps.count } >= 55 })
        receiver.setEncodedFrameSink(nil)
        await a.close()
        await b.close()
        let (timestamps, inTask) = sunk.withLock { $0 }
        #expect(inTask == 0, "the sink ran inside a task \(inTask) times")
        // In order, none missing: each 960 ticks (20 ms at 48 kHz) after the one before.
        #expect(zip(timestamps, timestamps.dropFirst()).allSatisfy { $1 &- $0 == 960 })
        #expect(fromStream.count == 50 && Array(timestamps.prefix(50)) == fromStream)
    }
}
