/// Extends 32-bit RTP timestamps to 64 bits by counting wrap-arounds.
public struct TimestampUnwrapper: Sendable {
    @usableFromInline var last: Int64?

    /// Creates an empty value.
    public init() {}

    /// The extended timestamp of `timestamp`; older timestamps map before the newest seen.
    @inlinable
    public mutating func unwrap(_ timestamp: UInt32) -> Int64 {
        guard let last else {
            self.last = Int64(timestamp)
            return Int64(timestamp)
        }
        let result = last + RTPTimestamp.distance(from: UInt32(truncatingIfNeeded: last), to: timestamp)
        if result > last { self.last = result }
        return result
    }
}
