import SwiftRTCCore

/// Storage for `capacity` packets of up to `slotSize` bytes each, indexed by extended
/// sequence number modulo the capacity; used by the jitter buffer and the send-side packet
/// history. Extended sequence numbers may be negative (a packet before the first one): an
/// empty slot holds ``empty``, which no sequence number reaches.
///
/// The slots start at ``initialStride`` bytes, an audio packet's size, and double (up to
/// `slotSize`) when a larger packet comes, keeping what they hold: a stream's slots reach its
/// packets' size within its first packets and are not allocated again (at most 3 growths
/// from 256 to 1500 bytes, whatever a peer sends). An audio receiver's 128 slots take 32 KiB
/// instead of 188 KiB.
final class PacketSlots {
    /// Bytes per slot before a larger packet comes.
    static let initialStride = 256
    let capacity: Int
    /// The largest packet the slots take (callers refuse larger ones).
    let slotSize: Int
    /// Bytes per slot now: ``initialStride`` doubled as packets needed, at most `slotSize`.
    private(set) var stride: Int
    private var storage: UnsafeMutableRawBufferPointer
    private var lengths: [Int]
    /// The extended sequence number each slot holds, ``empty`` when empty.
    private(set) var sequences: [Int64]
    static let empty = Int64.min
    private(set) var arrivals: [Double]

    init(capacity: Int, slotSize: Int) {
        self.capacity = max(1, capacity)
        self.slotSize = max(12, slotSize)
        stride = min(Self.initialStride, self.slotSize)
        storage = .allocate(byteCount: self.capacity * stride, alignment: 8)
        lengths = Array(repeating: 0, count: self.capacity)
        sequences = Array(repeating: Self.empty, count: self.capacity)
        arrivals = Array(repeating: 0, count: self.capacity)
    }

    deinit { storage.deallocate() }

    func index(_ sequence: Int64) -> Int { Int(sequence % Int64(capacity) + Int64(capacity)) % capacity }

    func holds(_ sequence: Int64) -> Bool { sequences[index(sequence)] == sequence }

    /// Copies `bytes` into the slot of `sequence` (the caller checked the size against
    /// `slotSize`), growing every slot first if they are smaller than it.
    func store(_ bytes: UnsafeRawBufferPointer, sequence: Int64, arrival: Double) {
        if bytes.count > stride { grow(toFit: bytes.count) }
        let i = index(sequence)
        UnsafeMutableRawBufferPointer(rebasing: storage[i * stride..<(i + 1) * stride]).put(bytes, at: 0)
        lengths[i] = bytes.count
        sequences[i] = sequence
        arrivals[i] = arrival
    }

    /// The bytes stored for `sequence`, valid until the next ``store(_:sequence:arrival:)``.
    func bytes(_ sequence: Int64) -> UnsafeRawBufferPointer? {
        let i = index(sequence)
        guard sequences[i] == sequence else { return nil }
        return UnsafeRawBufferPointer(rebasing: storage[i * stride..<i * stride + lengths[i]])
    }

    /// Doubles the slots until `count` bytes fit (at most `slotSize`), moving what they hold.
    private func grow(toFit count: Int) {
        var grown = stride
        while grown < count { grown *= 2 }
        grown = min(grown, slotSize)
        let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity * grown, alignment: 8)
        for i in 0..<capacity where sequences[i] != Self.empty {
            UnsafeMutableRawBufferPointer(rebasing: larger[i * grown..<i * grown + lengths[i]])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[i * stride..<i * stride + lengths[i]]))
        }
        storage.deallocate()
        storage = larger
        stride = grown
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
