import Testing

@testable import SwiftRTCPeer

@Suite struct EarlyDatagramsTests {
    /// Kept in arrival order with their kind and arrival time, up to the capacity; the rest, and datagrams
    /// bigger than a slot, dropped and counted; empty again once taken.
    @Test func keepsInOrderUpToTheCapacity() {
        var early = EarlyDatagrams()
        #expect(early.isEmpty)
        for i in 0..<EarlyDatagrams.capacity + 2 {
            let bytes = [UInt8](repeating: UInt8(i & 0xFF), count: 20 + i)
            bytes.withUnsafeBytes { early.store($0, rtcp: i % 3 == 0, arrival: Double(i)) }
        }
        [UInt8](repeating: 1, count: EarlyDatagrams.slotSize + 1).withUnsafeBytes {
            early.store($0, rtcp: false, arrival: 0)
        }
        #expect(early.count == EarlyDatagrams.capacity && early.dropped == 3)
        var seen: [(first: UInt8, length: Int, rtcp: Bool, arrival: Double)] = []
        early.take().drain { datagram, rtcp, arrival in seen.append((datagram[0], datagram.count, rtcp, arrival)) }
        #expect(early.isEmpty && early.dropped == 3)
        #expect(seen.count == EarlyDatagrams.capacity)
        #expect(
            seen.enumerated().allSatisfy { i, entry in
                entry.first == UInt8(i & 0xFF) && entry.length == 20 + i && entry.rtcp == (i % 3 == 0)
                    && entry.arrival == Double(i)
            }
        )
    }
}
