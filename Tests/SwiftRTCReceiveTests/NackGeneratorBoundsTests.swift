import SwiftRTCCore
import Testing

@testable import SwiftRTCRTP
@testable import SwiftRTCReceive

/// Issue 17: what a peer does with its sequence numbers never makes a packet cost work that
/// grows with what came before, nor the missing list grow past its limit.
@Suite struct NackGeneratorBoundsTests {
    /// Holes at every other sequence number (`count` of them), then more packets.
    static func withHoles(_ count: Int) -> NackGenerator {
        var nack = NackGenerator()
        for i in 0...count { nack.received(UInt16(2 * i)) }
        return nack
    }

    /// Entries visited by one `received` call.
    static func work(_ nack: inout NackGenerator, _ sequence: UInt16, at now: Double = 0) -> Int {
        let before = nack.visited
        nack.received(sequence, at: now)
        return nack.visited - before
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// Sequence numbers received after the holes, and the most work any may cost.
        var then: [UInt16]
        var maximumWork: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // In order after the holes: the old code scanned the whole missing list per packet.
        Case(name: "in order", then: Array(999...1300), maximumWork: 4),
        // Late packets that fill holes: found by binary search, not a scan.
        Case(name: "holes filled", then: stride(from: 1, to: 400, by: 2).map { UInt16($0) }, maximumWork: 12),
        // Small jumps: only the new holes are written (and as many old ones dropped).
        Case(
            name: "jumps of 40",
            then: stride(from: 1040, to: 3000, by: 40).map { UInt16($0) },
            maximumWork: 3 * 40 + 8
        ),
        // Jumps beyond the list: a restart, not a write of every hole.
        Case(name: "jumps of 600", then: stride(from: 1600, to: 30_000, by: 600).map { UInt16($0) }, maximumWork: 4),
        Case(
            name: "jumps of 32767",
            then: (1...50).map { UInt16(truncatingIfNeeded: 998 + 32767 * $0) },
            maximumWork: 4
        ),
        Case(name: "jumps back", then: (1...50).map { UInt16(truncatingIfNeeded: 998 - 20_000 * $0) }, maximumWork: 12),
    ]

    @Test(arguments: cases) func perPacketWorkDoesNotGrowWithTheMissingList(_ c: Case) {
        var nack = Self.withHoles(499)
        #expect(nack.missingCount == 499)
        var worst = 0
        for sequence in c.then { worst = max(worst, Self.work(&nack, sequence)) }
        #expect(worst <= c.maximumWork)
        #expect(nack.missingCount <= nack.maximumMissing)
    }

    @Test func aJumpBeyondTheListRestartsCleanlyAndIsCounted() {
        var nack = NackGenerator(maximumAge: 1000, maximumMissing: 100)
        for sequence: UInt16 in [0, 2, 4] { nack.received(sequence) }
        #expect(nack.missingCount == 2)
        nack.received(4 + 101 + 1)  // 101 new holes: more than the list holds
        #expect(nack.missingCount == 0, "no hole of the jump is asked for")
        #expect(nack.jumpsRestarted == 1 && nack.abandoned == 2)
        let none = nack.sequenceNumbersToRequest(now: 0, retryInterval: 0.1)
        #expect(none == [])
        // From the new place on, holes are followed again.
        nack.received(4 + 101 + 3)
        let one = nack.sequenceNumbersToRequest(now: 0, retryInterval: 0.1)
        #expect(one == [4 + 101 + 2])
        // A jump the list can hold is no restart.
        nack.received(4 + 101 + 3 + 100)
        #expect(nack.jumpsRestarted == 1 && nack.missingCount == 100)
    }

    @Test func theListNeverHoldsMoreThanItsLimit() {
        var nack = NackGenerator(maximumAge: 1000, maximumMissing: 50)
        var sequence: UInt16 = 0
        for step in 0..<5000 {
            sequence &+= UInt16(2 + step % 7)
            nack.received(sequence, at: Double(step) / 1000)
            #expect(nack.missingCount <= 50)
        }
        #expect(nack.jumpsRestarted == 0)
        let due = nack.sequenceNumbersToRequest(now: 10, retryInterval: 0.1)
        #expect(due.count <= 50)
    }

    @Test func aRequesterAsksForAKeyframeAfterARestart() {
        var requester = NackRequester(senderSSRC: 1)
        requester.received(sequenceNumber: 10, ssrc: 2, at: 0)
        requester.received(sequenceNumber: 11, ssrc: 2, at: 0)
        let none = requester.takeAbandoned()
        #expect(!none)
        requester.received(sequenceNumber: 11 &+ 20_000, ssrc: 2, at: 0.01)
        #expect(requester.jumpsRestarted == 1)
        let abandoned = requester.takeAbandoned()
        #expect(abandoned, "the frames in the jump are lost: a keyframe is needed")
        let poll = requester.poll(now: 0.02)
        #expect(poll == nil)
    }

    @Test func theDefaultLimitsAreTheNamedOnes() {
        let nack = NackGenerator()
        #expect(nack.maximumMissing == RemoteInputLimits.maxNackMissingPackets)
        #expect(nack.maximumAge == Int64(RemoteInputLimits.maxNackAge))
    }
}
