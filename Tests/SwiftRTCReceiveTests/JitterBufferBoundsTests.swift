import RTPFixtureSupport
import SwiftRTCCore
import Testing

@testable import SwiftRTCRTP
@testable import SwiftRTCReceive

/// Issue 17: sequence jumps of up to 32767 and wild timestamps cost the jitter buffer bounded
/// work per packet, never stall it for long, and never trap.
@Suite struct JitterBufferBoundsTests {
    static func packet(_ sequence: UInt16, timestamp: UInt32 = 0) -> [UInt8] {
        (try? writeRTP(RTPHeader(payloadType: 96, sequenceNumber: sequence, timestamp: timestamp, ssrc: 1)) { w in
            try [UInt8](repeating: 7, count: 20).withUnsafeBytes { try w.appendPayload($0) }
        }) ?? []
    }

    @discardableResult
    static func insert(
        _ buffer: JitterBuffer,
        _ sequence: UInt16,
        timestamp: UInt32 = 0,
        at arrival: Double
    ) -> JitterBuffer.InsertResult {
        packet(sequence, timestamp: timestamp).withUnsafeBytes { buffer.insert($0, arrival: arrival) }
    }

    /// Slots looked at by one insert and the pops after it.
    static func work(_ buffer: JitterBuffer, _ sequence: UInt16, at arrival: Double) -> Int {
        let before = buffer.visited
        Self.insert(buffer, sequence, at: arrival)
        _ = events(buffer, now: arrival)
        _ = buffer.nextEventTime
        return buffer.visited - before
    }

    @Test(arguments: [600, 5_000, 20_000, 32_767])
    func aJumpCostsBoundedWorkAndRestartsAtTheNewPacket(jump: Int) {
        let buffer = JitterBuffer(capacity: 512, maximumWait: 0.1)
        for sequence: UInt16 in 100..<110 { Self.insert(buffer, sequence, at: 0) }
        #expect(events(buffer, now: 0.1).count == 10)
        var worst = 0
        var sequence: UInt16 = 109
        for n in 1...20 {
            sequence &+= UInt16(jump)
            worst = max(worst, Self.work(buffer, sequence, at: 0.1 + Double(n) * 0.01))
        }
        // Clearing the slots and looking for the next packet: at most about twice the
        // capacity, however far the jump (the old buffer stepped through every number).
        #expect(worst <= 2 * 512 + 8, "\(worst) slots for a jump of \(jump)")
        #expect(buffer.jumpsRestarted == 20)
        #expect(buffer.count == 0, "each packet after a jump is delivered at once, no wait for the skipped numbers")
        // The stream goes on from the last jump.
        Self.insert(buffer, sequence &+ 1, at: 1)
        #expect(events(buffer, now: 1) == ["\(sequence &+ 1)"])
    }

    @Test func overflowWithinTheWindowIsNoRestart() {
        let buffer = JitterBuffer(capacity: 8, maximumWait: 10)
        Self.insert(buffer, 0, at: 0)
        #expect(events(buffer, now: 10) == ["0"])
        for sequence: UInt16 in 2...12 { Self.insert(buffer, sequence, at: 10) }
        #expect(buffer.jumpsRestarted == 0)
        #expect(events(buffer, now: 10) == ["gap 1+4", "5", "6", "7", "8", "9", "10", "11", "12"])
    }

    /// The extended sequence number of a packet before the first one can be -1: it is not
    /// taken for an empty slot (the old marker) and reported as a duplicate.
    @Test func aPacketJustBeforeTheFirstIsKept() {
        let buffer = JitterBuffer(capacity: 16, maximumWait: 0.1)
        #expect(Self.insert(buffer, 0, at: 0) == .accepted)
        #expect(Self.insert(buffer, 65535, at: 0.001) == .accepted)
        #expect(events(buffer, now: 0.2) == ["65535", "0"])
    }

    /// A timestamp jump back by much more than the playout delay: the packet before it is
    /// played after at most the largest delay, not when its far-off playout time comes.
    @Test(arguments: [-90_000 * 1000, -90_000 * 10, 90_000 * 20_000, Int(Int32.min)])
    func aTimestampJumpDoesNotStallTheStream(jump: Int) {
        let buffer = JitterBuffer(
            capacity: 512,
            maximumWait: 0.05,
            clockRate: 90_000,
            minimumDelay: 0.1,
            maximumDelay: 0.5
        )
        var timestamp: UInt32 = 1_000_000
        var delivered: [String] = []
        for n in 0..<10 {
            Self.insert(buffer, UInt16(n), timestamp: timestamp, at: Double(n) * 0.033)
            delivered += events(buffer, now: Double(n) * 0.033)
            timestamp &+= 3000
        }
        timestamp = timestamp &+ UInt32(truncatingIfNeeded: jump)
        var now = 0.33
        for n in 10..<40 {
            Self.insert(buffer, UInt16(n), timestamp: timestamp, at: now)
            delivered += events(buffer, now: now)
            timestamp &+= 3000
            now += 0.033
        }
        delivered += events(buffer, now: now + 0.6)
        #expect(delivered == (0..<40).map { "\($0)" })
        #expect(buffer.jitter < 0.1, "the jump is no jitter sample: \(buffer.jitter)")
        #expect(buffer.timestampJumps >= 1)
    }

    /// Any sequence of sequence numbers and timestamps (a fixed pseudo-random one): no trap,
    /// the buffer never holds more than its capacity, every insert's work stays bounded.
    @Test(arguments: [1, 2, 3])
    func randomNumbersNeverTrapOrGrow(seed: UInt64) {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        let buffer = JitterBuffer(
            capacity: 64,
            maximumWait: 0.02,
            clockRate: 48_000,
            minimumDelay: 0.02,
            maximumDelay: 0.5
        )
        var sequence: UInt16 = 0, timestamp: UInt32 = 0, now = 0.0, worst = 0
        for _ in 0..<20_000 {
            switch next() % 4 {
            case 0:
                sequence = UInt16(truncatingIfNeeded: next())
                timestamp = UInt32(truncatingIfNeeded: next())
            case 1:
                sequence &+= UInt16(truncatingIfNeeded: next() % 100)
                timestamp &+= 960
            default:
                sequence &+= 1
                timestamp &+= 960
            }
            now += Double(next() % 40) / 1000
            worst = max(worst, Self.work(buffer, sequence, at: now))
            #expect(buffer.count <= 64)
        }
        // Skipping, looking for the packet after a hole in pop and in nextEventTime: each
        // at most the capacity.
        #expect(worst <= 4 * 64)
        while buffer.flush() != nil {}
        #expect(buffer.count == 0)
    }
}
