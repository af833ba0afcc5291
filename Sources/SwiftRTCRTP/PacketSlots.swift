import SwiftRTCCore

/// Fixed storage for `capacity` packets of up to `slotSize` bytes each, indexed by extended
/// sequence number modulo the capacity. Allocated once; used by the jitter buffer and the
/// send-side packet history. Extended sequence numbers may be negative (a packet before the
/// first one): an empty slot holds ``empty``, which no sequence number reaches.
final class PacketSlots {
    let capacity: Int
    let slotSize: Int
    private let storage: UnsafeMutableRawBufferPointer
    private var lengths: [Int]
    /// The extended sequence number each slot holds, ``empty`` when empty.
    private(set) var sequences: [Int64]
    static let empty = Int64.min
    private(set) var arrivals: [Double]

    init(capacity: Int, slotSize: Int) {
        self.capacity = max(1, capacity)
        self.slotSize = max(12, slotSize)
        storage = .allocate(byteCount: self.capacity * self.slotSize, alignment: 8)
        lengths = Array(repeating: 0, count: self.capacity)
        sequences = Array(repeating: Self.empty, count: self.capacity)
        arrivals = Array(repeating: 0, count: self.capacity)
    }

    deinit { storage.deallocate() }

    func index(_ sequence: Int64) -> Int { Int(sequence % Int64(capacity) + Int64(capacity)) % capacity }

    func holds(_ sequence: Int64) -> Bool { sequences[index(sequence)] == sequence }

    /// Copies `bytes` into the slot of `sequence` (the caller checked the size).
    func store(_ bytes: UnsafeRawBufferPointer, sequence: Int64, arrival: Double) {
        let i = index(sequence)
        UnsafeMutableRawBufferPointer(rebasing: storage[i * slotSize..<(i + 1) * slotSize]).put(bytes, at: 0)
        lengths[i] = bytes.count
        sequences[i] = sequence
        arrivals[i] = arrival
    }

    /// The bytes stored for `sequence`, valid until that slot is written again.
    func bytes(_ sequence: Int64) -> UnsafeRawBufferPointer? {
        let i = index(sequence)
        guard sequences[i] == sequence else { return nil }
        return UnsafeRawBufferPointer(rebasing: storage[i * slotSize..<i * slotSize + lengths[i]])
    }

    func arrival(_ sequence: Int64) -> Double { arrivals[index(sequence)] }

    func clear(_ sequence: Int64) {
        let i = index(sequence)
        if sequences[i] == sequence { sequences[i] = Self.empty }
    }

    /// Empties every slot.
    func clearAll() {
        for i in 0..<capacity { sequences[i] = Self.empty }
    }
}
