import RTPFixtureSupport
import Testing

@testable import SwiftRTCRTP
@testable import SwiftRTCReceive

/// The adaptive playout delay: target = 3 × jitter within bounds, packets released when due
/// (on a timer, not only when the next packet arrives).
@Suite struct JitterBufferAdaptationTests {
    /// An audio stream: 20 ms packets (960 ticks at 48 kHz), arriving with a network delay of
    /// 50 ms plus a jitter of up to ±`jitter` seconds (a fixed pseudo-random sequence).
    func feed(_ buffer: JitterBuffer, jitter: Double, count: Int = 300) throws {
        var seed: UInt32 = 12345
        for n in 0..<count {
            seed = seed &* 1_103_515_245 &+ 12345
            let noise = (Double(seed >> 16 & 0x7FFF) / 32767 * 2 - 1) * jitter
            let packet = try writeRTP(
                RTPHeader(payloadType: 111, sequenceNumber: UInt16(n), timestamp: UInt32(n * 960), ssrc: 1)
            ) { w in
                try [UInt8]([1, 2, 3]).withUnsafeBytes { try w.appendPayload($0) }
            }
            packet.withUnsafeBytes { _ = buffer.insert($0, arrival: 0.05 + Double(n) * 0.02 + noise) }
        }
    }

    @Test(arguments: [(0.0, 0.0, 0.02), (0.01, 0.015, 0.04), (0.03, 0.045, 0.12)])
    func targetFollowsTheJitter(jitter: Double, atLeast: Double, atMost: Double) throws {
        let buffer = JitterBuffer(
            capacity: 512,
            maximumWait: 0.02,
            clockRate: 48_000,
            minimumDelay: 0.01,
            maximumDelay: 0.5
        )
        try feed(buffer, jitter: jitter)
        #expect(
            buffer.targetDelay >= max(0.01, atLeast) && buffer.targetDelay <= atMost,
            "target \(buffer.targetDelay) s for ±\(jitter) s, jitter estimate \(buffer.jitter)"
        )
    }

    @Test func targetStaysWithinItsBounds() throws {
        let capped = JitterBuffer(capacity: 512, clockRate: 48_000, minimumDelay: 0.02, maximumDelay: 0.06)
        try feed(capped, jitter: 0.2)
        #expect(capped.targetDelay == 0.06)
        let floored = JitterBuffer(capacity: 512, clockRate: 48_000, minimumDelay: 0.02, maximumDelay: 0.06)
        try feed(floored, jitter: 0)
        #expect(floored.targetDelay == 0.02)
    }

    /// A steady stream with a 40 ms minimum delay: each packet waits for its playout time and
    /// leaves then, on a poll without any other packet arriving (without a playout delay it
    /// would leave at once).
    @Test func releasesOnTimeNotOnArrival() throws {
        let buffer = JitterBuffer(
            capacity: 64,
            maximumWait: 0,
            clockRate: 48_000,
            minimumDelay: 0.04,
            maximumDelay: 0.5
        )
        var released: [Double] = []
        var inserted = 0
        for tick in 0..<200 {
            let now = 1.0 + Double(tick) * 0.001
            // Packet n arrives at 1.0 + 0.02 n; due 40 ms later.
            if inserted < 3, now >= 1.0 + 0.02 * Double(inserted) - 1e-9 {
                let packet = try writeRTP(
                    RTPHeader(
                        payloadType: 111,
                        sequenceNumber: UInt16(inserted),
                        timestamp: UInt32(inserted * 960),
                        ssrc: 1
                    )
                ) { w in
                    try [UInt8]([9]).withUnsafeBytes { try w.appendPayload($0) }
                }
                packet.withUnsafeBytes { _ = buffer.insert($0, arrival: now) }
                inserted += 1
            }
            while case .packet = buffer.pop(now: now) { released.append(now) }
        }
        #expect(released.count == 3)
        for (n, time) in released.enumerated() {
            let due = 1.0 + 0.02 * Double(n) + 0.04
            #expect(time >= due - 0.0011 && time < due + 0.0021, "packet \(n) left at \(time), due \(due)")
        }
    }

    /// A lost packet is given up once the packet after it is due: the gap is reported, and
    /// playout goes on without waiting for it longer.
    @Test func aHoleIsSkippedWhenThePacketAfterItIsDue() throws {
        let buffer = JitterBuffer(
            capacity: 64,
            maximumWait: 0,
            clockRate: 48_000,
            minimumDelay: 0.04,
            maximumDelay: 0.5
        )
        for n in [0, 2] {
            let packet = try writeRTP(
                RTPHeader(payloadType: 111, sequenceNumber: UInt16(n), timestamp: UInt32(n * 960), ssrc: 1)
            ) { w in
                try [UInt8]([9]).withUnsafeBytes { try w.appendPayload($0) }
            }
            packet.withUnsafeBytes { _ = buffer.insert($0, arrival: 1.0 + 0.02 * Double(n)) }
        }
        guard case .packet = buffer.pop(now: 1.0401) else {
            Issue.record("packet 0 not released at its time")
            return
        }
        #expect(buffer.pop(now: 1.079) == nil)
        guard case .gap(first: 1, count: 1) = buffer.pop(now: 1.081) else {
            Issue.record("no gap for packet 1")
            return
        }
        guard case .packet = buffer.pop(now: 1.081) else {
            Issue.record("packet 2 not released")
            return
        }
    }
}
