/// Fixed storage for `capacity` packets of up to `slotSize` bytes each, indexed by extended
/// sequence number modulo the capacity. Allocated once; used by the jitter buffer and the
/// send-side packet history.
final class PacketSlots {
    let capacity: Int
    let slotSize: Int
    private let storage: UnsafeMutableRawBufferPointer
    private var lengths: [Int]
    /// The extended sequence number each slot holds, -1 when empty.
    private(set) var sequences: [Int64]
    private(set) var arrivals: [Double]

    init(capacity: Int, slotSize: Int) {
        self.capacity = max(1, capacity)
        self.slotSize = max(12, slotSize)
        storage = .allocate(byteCount: self.capacity * self.slotSize, alignment: 8)
        lengths = Array(repeating: 0, count: self.capacity)
        sequences = Array(repeating: -1, count: self.capacity)
        arrivals = Array(repeating: 0, count: self.capacity)
    }

    deinit { storage.deallocate() }

    func index(_ sequence: Int64) -> Int { Int(sequence % Int64(capacity) + Int64(capacity)) % capacity }

    func holds(_ sequence: Int64) -> Bool { sequences[index(sequence)] == sequence }

    /// Copies `bytes` into the slot of `sequence` (the caller checked the size).
    func store(_ bytes: UnsafeRawBufferPointer, sequence: Int64, arrival: Double) {
        let i = index(sequence)
        UnsafeMutableRawBufferPointer(rebasing: storage[i * slotSize ..< (i + 1) * slotSize]).put(bytes, at: 0)
        lengths[i] = bytes.count
        sequences[i] = sequence
        arrivals[i] = arrival
    }

    /// The bytes stored for `sequence`, valid until that slot is written again.
    func bytes(_ sequence: Int64) -> UnsafeRawBufferPointer? {
        let i = index(sequence)
        guard sequences[i] == sequence else { return nil }
        return UnsafeRawBufferPointer(rebasing: storage[i * slotSize ..< i * slotSize + lengths[i]])
    }

    func arrival(_ sequence: Int64) -> Double { arrivals[index(sequence)] }

    func clear(_ sequence: Int64) {
        let i = index(sequence)
        if sequences[i] == sequence { sequences[i] = -1 }
    }
}
