import RTPFixtureSupport
import Testing

@testable import SwiftRTCRTP
@testable import SwiftRTCReceive

@Suite struct JitterBufferTests {
    func packet(_ sequence: UInt16, timestamp: UInt32 = 0, size: Int = 10) throws -> [UInt8] {
        try writeRTP(RTPHeader(payloadType: 96, sequenceNumber: sequence, timestamp: timestamp, ssrc: 1)) { w in
            try [UInt8](repeating: UInt8(truncatingIfNeeded: sequence), count: size).withUnsafeBytes {
                try w.appendPayload($0)
            }
        }
    }

    @Test func reordersAcrossTheWrapAndDropsDuplicates() throws {
        let buffer = JitterBuffer(capacity: 16, maximumWait: 0.1)
        let results = try [UInt16]([65534, 0, 65535, 1, 0]).map { sequence in
            try packet(sequence).withUnsafeBytes { buffer.insert($0, arrival: 0) }
        }
        #expect(results == [.accepted, .accepted, .accepted, .accepted, .duplicate])
        #expect(buffer.duplicates == 1)
        #expect(events(buffer, now: 0.05) == [], "the stream start waits for earlier packets")
        #expect(events(buffer, now: 0.1) == ["65534", "65535", "0", "1"])
        #expect(try packet(65535).withUnsafeBytes { buffer.insert($0, arrival: 0.2) } == .late)
    }

    @Test func waitsABoundedTimeThenReportsTheGap() throws {
        let buffer = JitterBuffer(capacity: 64, maximumWait: 0.1)
        for (sequence, time) in [(UInt16(10), 0.0), (11, 0.0), (14, 0.2)] {
            _ = try packet(sequence).withUnsafeBytes { buffer.insert($0, arrival: time) }
        }
        #expect(events(buffer, now: 0.2) == ["10", "11"])
        #expect(events(buffer, now: 0.25) == [], "still waiting for 12 and 13")
        _ = try packet(12).withUnsafeBytes { buffer.insert($0, arrival: 0.26) }
        #expect(events(buffer, now: 0.26) == ["12"])
        #expect(events(buffer, now: 0.31) == ["gap 13+1", "14"])
        #expect(buffer.lostPackets == 1)
        #expect(try packet(13).withUnsafeBytes { buffer.insert($0, arrival: 0.32) } == .late)
    }

    @Test func overflowSkipsTheOldestInsteadOfGrowing() throws {
        let buffer = JitterBuffer(capacity: 8, maximumWait: 10)
        _ = try packet(0).withUnsafeBytes { buffer.insert($0, arrival: 0) }
        #expect(events(buffer, now: 10) == ["0"])
        for sequence: UInt16 in 2...12 { _ = try packet(sequence).withUnsafeBytes { buffer.insert($0, arrival: 10) } }
        #expect(buffer.count <= 8)
        #expect(events(buffer, now: 10) == ["gap 1+4", "5", "6", "7", "8", "9", "10", "11", "12"])
    }

    @Test func rejectsGarbageAndOversizedPackets() throws {
        let buffer = JitterBuffer(capacity: 8, slotSize: 100)
        #expect([UInt8](repeating: 0xFF, count: 20).withUnsafeBytes { buffer.insert($0, arrival: 0) } == .rejected)
        #expect(try packet(1, size: 200).withUnsafeBytes { buffer.insert($0, arrival: 0) } == .rejected)
        #expect(buffer.rejectedPackets == 2)
    }

    @Test func playoutDelayFollowsJitter() throws {
        let steady = JitterBuffer(maximumWait: 0.5, clockRate: 90_000, maximumDelay: 0.5)
        let jittery = JitterBuffer(maximumWait: 0.5, clockRate: 90_000, maximumDelay: 0.5)
        for n in 0..<100 {
            let timestamp = UInt32(n * 3000)
            _ = try packet(UInt16(n), timestamp: timestamp).withUnsafeBytes {
                steady.insert($0, arrival: Double(n) / 30)
            }
            _ = try packet(UInt16(n), timestamp: timestamp).withUnsafeBytes {
                jittery.insert($0, arrival: Double(n) / 30 + (n % 2 == 0 ? 0 : 0.02))
            }
        }
        #expect(steady.targetDelay < 0.001)
        #expect(jittery.targetDelay > 0.04 && jittery.targetDelay <= 0.5)
    }

    /// `nextEventTime` is when `pop` next has something: infinity when empty, the stream
    /// start's wait, a hole's wait, a packet's playout time; nothing a moment before it.
    @Test func nextEventTimeSaysWhenPopHasSomething() throws {
        let buffer = JitterBuffer(capacity: 64, maximumWait: 0.1)
        #expect(buffer.nextEventTime == .infinity)
        for (sequence, time) in [(UInt16(10), 0.0), (11, 0.0)] {
            _ = try packet(sequence).withUnsafeBytes { buffer.insert($0, arrival: time) }
        }
        #expect(buffer.nextEventTime == 0.1, "the stream start waits for earlier packets")
        #expect(events(buffer, now: 0.0999) == [] && events(buffer, now: 0.1) == ["10", "11"])
        #expect(buffer.nextEventTime == .infinity)
        _ = try packet(14).withUnsafeBytes { buffer.insert($0, arrival: 0.2) }
        let holeEnds = buffer.nextEventTime
        #expect(abs(holeEnds - 0.3) < 1e-9, "12 and 13 are waited for 100 ms")
        #expect(events(buffer, now: 0.2999) == [] && events(buffer, now: holeEnds) == ["gap 12+2", "14"])

        // Audio with a 20 ms playout delay: each 20 ms frame is due 20 ms after it came.
        let audio = JitterBuffer(
            capacity: 64,
            maximumWait: 0.02,
            clockRate: 48_000,
            minimumDelay: 0.02,
            maximumDelay: 0.5
        )
        for n in 0..<10 {
            let arrival = 1 + Double(n) * 0.02
            _ = try packet(UInt16(n), timestamp: UInt32(n * 960)).withUnsafeBytes { audio.insert($0, arrival: arrival) }
            _ = events(audio, now: arrival)
            let due = audio.nextEventTime
            #expect(abs(due - (arrival + 0.02)) < 1e-6, "frame \(n)")
            #expect(events(audio, now: due - 0.001) == [] && events(audio, now: due) == ["\(n)"])
            #expect(audio.nextEventTime == .infinity)
        }
    }
}

/// What `buffer` releases at `now`, in order: sequence numbers, and `gap FIRST+COUNT`.
func events(_ buffer: JitterBuffer, now: Double) -> [String] {
    var result: [String] = []
    while let event = buffer.pop(now: now) {
        switch event {
        case let .packet(p): result.append("\(p.sequenceNumber)")
        case let .gap(first, count): result.append("gap \(first)+\(count)")
        }
    }
    return result
}
