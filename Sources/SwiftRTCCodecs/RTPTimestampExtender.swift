/// Extends 32-bit RTP timestamps to 64 bits across wraparound: each timestamp is placed
/// within 2^31 ticks of the previous one (the first is taken as is, earlier than 0 clamps).
struct RTPTimestampExtender {
    private var last: UInt64?

    mutating func extend(_ timestamp: UInt32) -> UInt64 {
        guard let last else {
            self.last = UInt64(timestamp)
            return UInt64(timestamp)
        }
        let delta = Int64(Int32(bitPattern: timestamp &- UInt32(truncatingIfNeeded: last)))
        let extended = delta < 0 && UInt64(-delta) > last ? 0 : UInt64(Int64(last) + delta)
        self.last = extended
        return extended
    }
}
