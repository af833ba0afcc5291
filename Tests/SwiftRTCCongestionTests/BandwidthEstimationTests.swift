import RandomTestSupport
import SwiftRTCRTP
import Testing

@testable import SwiftRTCCongestion

/// A simulated path: a bottleneck queue of `capacity` bits/s that holds at most
/// `queueLimit` µs of data (tail drop, like `tc tbf`), random loss, and propagation delay.
struct SimulatedPath {
    var capacity: Int
    var propagation: Int64 = 20_000
    var queueLimit: Int64 = 300_000
    var lossPercent: UInt64 = 0
    private var queueFreeAt: Int64 = 0
    private var random = SplitMix64(seed: 42)

    init(capacity: Int, lossPercent: UInt64 = 0) {
        self.capacity = capacity
        self.lossPercent = lossPercent
    }

    /// Sends `size` bytes at `time`: the arrival time and the queueing delay, or nil if lost.
    mutating func send(size: Int, at time: Int64) -> (arrival: Int64, queueing: Int64)? {
        if lossPercent > 0, random.next() % 100 < lossPercent { return nil }
        let start = max(time, queueFreeAt)
        guard start - time <= queueLimit else { return nil }
        queueFreeAt = start + Int64(size) * 8 * 1_000_000 / Int64(capacity)
        return (queueFreeAt + propagation, start - time)
    }
}

/// A sender whose media follows the estimate exactly, over a ``SimulatedPath``, with the
/// receiver's real ``TransportFeedbackRecorder`` and feedback every 100 ms (round trip
/// through the wire format).
struct CallSimulation {
    var path: SimulatedPath
    var estimator = SendSideBandwidthEstimator()
    var recorder = TransportFeedbackRecorder()
    /// (time s, estimate bits/s) every feedback.
    var estimates: [(time: Double, bitrate: Int)] = []
    /// (send time s, queueing delay ms) per packet that got through.
    var queueing: [(time: Double, delay: Double)] = []
    var sent = 0, lost = 0

    init(path: SimulatedPath, maximumBitrate: Int = SendSideBandwidthEstimator.defaultMaximumBitrate) {
        self.path = path
        estimator.maximumBitrate = maximumBitrate
    }

    mutating func run(seconds: Double) throws {
        var now: Int64 = 0
        var sequence: UInt16 = 0
        var nextFeedback: Int64 = 100_000
        var inFlight: [(sequence: UInt16, arrival: Int64)] = []
        let end = Int64(seconds * 1e6)
        let size = 1200
        while now < end {
            estimator.packetSent(sequenceNumber: sequence, size: size, sendTime: now)
            sent += 1
            if let (arrival, delay) = path.send(size: size, at: now) {
                inFlight.append((sequence, arrival))
                queueing.append((Double(now) / 1e6, Double(delay) / 1000))
            } else {
                lost += 1
            }
            sequence &+= 1
            now += Int64(size) * 8 * 1_000_000 / Int64(estimator.targetBitrate)
            while now >= nextFeedback {
                // The receiver reports what arrived by now; the sender gets it one propagation later.
                for packet in inFlight where packet.arrival <= nextFeedback {
                    recorder.record(sequenceNumber: packet.sequence, arrival: packet.arrival)
                }
                inFlight.removeAll { $0.arrival <= nextFeedback }
                while let feedback = recorder.makeFeedback(senderSSRC: 1, mediaSSRC: 2) {
                    var bytes = [UInt8](repeating: 0, count: 1500)
                    let length = try bytes.withUnsafeMutableBytes {
                        try RTCPPacket.transportFeedback(feedback).write(into: $0)
                    }
                    guard
                        case .transportFeedback(let parsed) = try bytes[..<length].withUnsafeBytes({
                            try RTCPPacket.parseCompound($0)
                        }).first
                    else { continue }
                    estimator.received(parsed, now: nextFeedback + path.propagation)
                }
                estimates.append((Double(nextFeedback) / 1e6, estimator.targetBitrate))
                nextFeedback += 100_000
            }
        }
    }

    /// The first time the estimate reached `bitrate`.
    func timeToReach(_ bitrate: Int) -> Double? { estimates.first { $0.bitrate >= bitrate }?.time }

    /// The average estimate between two times.
    func averageEstimate(from: Double, to: Double) -> Double {
        let window = estimates.filter { $0.time >= from && $0.time < to }
        return window.reduce(0) { $0 + Double($1.bitrate) } / Double(max(1, window.count))
    }

    /// The average queueing delay (ms) of packets sent between two times.
    func averageQueueing(from: Double, to: Double) -> Double {
        let window = queueing.filter { $0.time >= from && $0.time < to }
        return window.reduce(0) { $0 + $1.delay } / Double(max(1, window.count))
    }
}

@Suite struct BandwidthEstimationTests {
    /// With headroom (a 10 Mbit/s path), the estimate rises from 300 kbit/s to the 2.5 Mbit/s
    /// maximum within a few seconds, without queueing.
    @Test func rampsUpWithHeadroom() throws {
        var call = CallSimulation(path: SimulatedPath(capacity: 10_000_000))
        try call.run(seconds: 8)
        let reached1M = call.timeToReach(1_000_000) ?? .infinity
        let reachedMax = call.timeToReach(2_500_000) ?? .infinity
        print(
            "GCC ramp-up (simulated, 10 Mbit/s path): 300k -> 1 Mbit/s in \(reached1M) s, -> 2.5 Mbit/s in \(reachedMax) s"
        )
        #expect(reached1M < 3)
        #expect(reachedMax < 6)
        #expect(call.averageQueueing(from: 0, to: 8) < 5)
        #expect(call.lost == 0)
    }

    /// Under a 1 Mbit/s bottleneck the estimate converges near the capacity and the queue
    /// does not stay full: little average queueing delay once converged, no sustained loss.
    @Test(arguments: [500_000, 1_000_000, 1_500_000])
    func convergesUnderBottleneck(capacity: Int) throws {
        var call = CallSimulation(path: SimulatedPath(capacity: capacity))
        try call.run(seconds: 30)
        let average = call.averageEstimate(from: 10, to: 30)
        let queueing = call.averageQueueing(from: 10, to: 30)
        let lossAfter = call.queueing.filter { $0.time >= 10 }.count
        print(
            "GCC under \(capacity / 1000) kbit/s (simulated): estimate \(Int(average / 1000)) kbit/s (\(Int(average * 100 / Double(capacity)))%), queueing \(Int(queueing)) ms, lost \(call.lost) of \(call.sent)"
        )
        #expect(average > 0.6 * Double(capacity))
        #expect(average < 1.1 * Double(capacity))
        #expect(queueing < 60)
        #expect(Double(call.lost) < 0.02 * Double(call.sent))
        #expect(lossAfter > 0)
    }

    /// Random loss: 20% brings the estimate down (loss-based part) though the path has room;
    /// 1% does not stop the ramp-up.
    @Test func lossBasedReaction() throws {
        var lossy = CallSimulation(path: SimulatedPath(capacity: 10_000_000, lossPercent: 20))
        try lossy.run(seconds: 10)
        var light = CallSimulation(path: SimulatedPath(capacity: 10_000_000, lossPercent: 1))
        try light.run(seconds: 10)
        print(
            "GCC with 20% random loss: \(lossy.estimator.targetBitrate / 1000) kbit/s; with 1%: \(light.estimator.targetBitrate / 1000) kbit/s"
        )
        #expect(lossy.estimator.targetBitrate < SendSideBandwidthEstimator.defaultStartBitrate)
        #expect(lossy.estimator.lossFraction > 0.1)
        #expect(light.estimator.targetBitrate > 2_000_000)
    }

    /// A cap (maximum bitrate) bounds the estimate; a REMB from the peer does too.
    @Test func capsAndREMBBound() throws {
        var capped = CallSimulation(path: SimulatedPath(capacity: 10_000_000), maximumBitrate: 400_000)
        try capped.run(seconds: 5)
        #expect(capped.estimates.allSatisfy { $0.bitrate <= 400_000 })
        #expect(capped.estimator.targetBitrate == 400_000)
        var estimator = SendSideBandwidthEstimator()
        estimator.receivedREMB(bitrate: 120_000)
        #expect(estimator.targetBitrate == 120_000)
        estimator.receivedREMB(bitrate: 10)
        #expect(estimator.targetBitrate == SendSideBandwidthEstimator.defaultMinimumBitrate)
    }

    /// Without transport-cc, receiver reports' fraction lost drive the estimate.
    @Test func receiverReportLoss() {
        var estimator = SendSideBandwidthEstimator()
        estimator.receivedLossReport(fractionLost: 0, now: 0)
        #expect(estimator.targetBitrate == 316_000)
        estimator.receivedLossReport(fractionLost: 0.3, now: 1_000_000)
        #expect(estimator.targetBitrate == 268_600)
        estimator.receivedLossReport(fractionLost: 0.05, now: 2_000_000)
        #expect(estimator.targetBitrate == 268_600)
    }
}
