import Testing

@testable import SwiftRTCRTP
@testable import SwiftRTCReceive

/// `PacketSlots` start at an audio packet's size and grow when a larger packet comes, keeping
/// every packet they hold; they never grow past the largest packet they take.
@Suite struct PacketSlotsTests {
    static func packet(_ length: Int, fill: UInt8) -> [UInt8] { [UInt8](repeating: fill, count: length) }

    static func held(_ slots: PacketSlots, _ sequence: Int64) -> [UInt8]? {
        slots.bytes(sequence).map { [UInt8]($0) }
    }

    @Test(arguments: [
        // (packet lengths stored in order, the stride after them)
        ([100, 200, 256], 256),
        ([100, 257], 512),
        ([100, 600], 1024),
        ([100, 1200, 1500], 1500),
        ([1500], 1500),
        ([300, 700, 1100, 1500], 1500),
    ])
    func slotsGrowToTheLargestPacketAndKeepWhatTheyHold(lengths: [Int], stride: Int) {
        let slots = PacketSlots(capacity: 8, slotSize: 1500)
        #expect(slots.stride == PacketSlots.initialStride)
        for (n, length) in lengths.enumerated() {
            Self.packet(length, fill: UInt8(n + 1)).withUnsafeBytes {
                slots.store($0, sequence: Int64(n), arrival: Double(n))
            }
        }
        #expect(slots.stride == stride)
        for (n, length) in lengths.enumerated() {
            #expect(Self.held(slots, Int64(n)) == Self.packet(length, fill: UInt8(n + 1)))
            #expect(slots.arrival(Int64(n)) == Double(n))
        }
    }

    @Test func slotsSmallerThanTheStartingStrideStayAtTheirSize() {
        let slots = PacketSlots(capacity: 4, slotSize: 100)
        #expect(slots.stride == 100)
        Self.packet(100, fill: 7).withUnsafeBytes { slots.store($0, sequence: -1, arrival: 0) }
        #expect(slots.stride == 100 && Self.held(slots, -1) == Self.packet(100, fill: 7))
    }

    @Test func overwrittenAndClearedSlotsAreNotMovedBack() {
        let slots = PacketSlots(capacity: 2, slotSize: 1500)
        for sequence in Int64(0)..<3 {
            Self.packet(50, fill: UInt8(sequence)).withUnsafeBytes { slots.store($0, sequence: sequence, arrival: 0) }
        }
        slots.clear(1)
        Self.packet(1000, fill: 9).withUnsafeBytes { slots.store($0, sequence: 3, arrival: 0) }
        #expect(slots.stride == 1024)
        #expect(Self.held(slots, 0) == nil && Self.held(slots, 1) == nil)
        #expect(Self.held(slots, 2) == Self.packet(50, fill: 2))
        #expect(Self.held(slots, 3) == Self.packet(1000, fill: 9))
    }
}
