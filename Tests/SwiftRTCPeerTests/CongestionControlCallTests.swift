import Foundation
import SwiftRTCCongestion
import SwiftRTCMedia
import SwiftRTCRTP
import SwiftRTCSDP
import TestScheduling
import Testing

@testable import SwiftRTCPeer

/// Congestion control end to end over loopback: transport-cc negotiated and flowing, the
/// estimate ramping up from its start value and driving the encoder, and caps (configured,
/// and `b=AS` from the remote description) keeping the sent rate under them.
@Suite(.serialized, .realTime) struct CongestionControlCallTests {
    /// One sample of a side's sending state.
    struct Sample {
        var time: Double
        var estimate: Double
        var videoTarget: Double
        var videoBytes: Double
    }

    static func sample(_ pc: PeerConnection, since start: ContinuousClock.Instant) async -> Sample {
        let report = await pc.stats()
        let video = report.first(.outboundRTP, kind: "video")
        return Sample(
            time: (ContinuousClock.now - start).seconds,
            estimate: report.all(.candidatePair).first?.number("availableOutgoingBitrate") ?? 0,
            videoTarget: video?.number("targetBitrate") ?? 0,
            videoBytes: video?.number("bytesSent") ?? 0
        )
    }

    /// Samples both sides every 250 ms for `seconds` from connection on.
    static func run(_ call: LoopbackCall, seconds: Double) async -> (offerer: [Sample], answerer: [Sample]) {
        let start = ContinuousClock.now
        var offerer: [Sample] = [], answerer: [Sample] = []
        while (ContinuousClock.now - start).seconds < seconds {
            offerer.append(await sample(call.offerer, since: start))
            answerer.append(await sample(call.answerer, since: start))
            try? await Task.sleep(for: .milliseconds(250))
        }
        return (offerer, answerer)
    }

    /// The video payload rate (bits/s) between the samples nearest `from` and the last.
    static func sentRate(_ samples: [Sample], from: Double) -> Double {
        guard let first = samples.first(where: { $0.time >= from }), let last = samples.last, last.time > first.time
        else { return 0 }
        return (last.videoBytes - first.videoBytes) * 8 / (last.time - first.time)
    }

    /// Uncapped: transport-cc is negotiated as browsers do, the estimate starts at 300 kbit/s
    /// and rises (up to 1.5 times what the encoder actually sends), the encoder's target
    /// follows it.
    @Test func estimateRampsUpAndDrivesTheEncoder() async throws {
        let call = try await LoopbackCall.start(width: 640, height: 480, framesPerSecond: 30)
        guard call.connectedAfter != nil else {
            Issue.record("the call did not connect")
            await call.close()
            return
        }
        #expect(await call.waitForMedia())
        let offer = try #require(await call.offerer.localDescription?.sdp)
        #expect(offer.contains("a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"))
        #expect(offer.contains("a=rtcp-fb:96 transport-cc"))
        let samples = await Self.run(call, seconds: 5)
        await call.close()
        let estimates = samples.offerer.map(\.estimate)
        let first = try #require(estimates.first)
        let peak = estimates.max() ?? 0
        let reached = samples.offerer.first { $0.estimate >= 450_000 }?.time
        print(
            "CC loopback ramp-up: estimate \(Int(first / 1000)) -> \(Int(peak / 1000)) kbit/s, 450 kbit/s (1.5x) after \(reached.map { String(format: "%.2f s", $0) } ?? "-"); video target \(Int((samples.offerer.last?.videoTarget ?? 0) / 1000)) kbit/s; sent \(Int(Self.sentRate(samples.offerer, from: 2) / 1000)) kbit/s"
        )
        print("CC loopback estimates (kbit/s): \(estimates.map { Int($0 / 1000) })")
        #expect(first <= 400_000, "starts near 300 kbit/s")
        // The test pattern is simple: VP8 sends about 270 kbit/s of it whatever the target,
        // and the estimate stops at 1.5 times what got through (it is not tested beyond).
        #expect(peak >= 450_000, "rises with headroom")
        #expect((samples.offerer.last?.videoTarget ?? 0) > first, "the encoder's target follows the estimate")
        #expect((samples.answerer.map(\.estimate).max() ?? 0) >= 450_000, "both directions")
    }

    /// A 300 kbit/s video cap on the offerer: its encoder's target and its sent rate stay
    /// under it; its offer carries `b=AS:300`, which caps the answerer's video too.
    @Test func videoCapAndRemoteBandwidthLine() async throws {
        var capped = LoopbackCall.configuration
        capped.maxVideoBitrateKbps = 300
        let call = try await LoopbackCall.start(
            width: 640,
            height: 480,
            framesPerSecond: 30,
            configurations: (capped, LoopbackCall.configuration)
        )
        guard call.connectedAfter != nil else {
            Issue.record("the call did not connect")
            await call.close()
            return
        }
        #expect(await call.waitForMedia())
        let offer = try #require(await call.offerer.localDescription?.sdp)
        let answer = try #require(await call.answerer.localDescription?.sdp)
        #expect(offer.contains("b=AS:300\r\nb=TIAS:300000"))
        #expect(!answer.contains("b=AS"))
        let samples = await Self.run(call, seconds: 5)
        await call.close()
        let offererRate = Self.sentRate(samples.offerer, from: 2)
        let answererRate = Self.sentRate(samples.answerer, from: 2)
        print(
            "CC loopback cap 300 kbit/s: offerer video sent \(Int(offererRate / 1000)) kbit/s (target max \(Int((samples.offerer.map(\.videoTarget).max() ?? 0) / 1000))), answerer (b=AS:300 from the offer) \(Int(answererRate / 1000)) kbit/s (target max \(Int((samples.answerer.map(\.videoTarget).max() ?? 0) / 1000)))"
        )
        #expect(samples.offerer.allSatisfy { $0.videoTarget <= 300_000 })
        #expect(samples.answerer.allSatisfy { $0.videoTarget <= 300_000 })
        #expect(offererRate > 50_000 && offererRate < 300_000)
        #expect(answererRate > 50_000 && answererRate < 300_000)
    }
}
