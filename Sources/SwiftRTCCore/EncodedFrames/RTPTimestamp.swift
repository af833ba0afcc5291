/// RTP timestamp arithmetic with 32-bit wrap-around.
public enum RTPTimestamp {
    /// Whether `a` comes after `b`, the shorter way round the 32-bit circle.
    @inlinable
    public static func isNewer(_ a: UInt32, than b: UInt32) -> Bool {
        a != b && a &- b < 0x8000_0000
    }

    /// Signed distance from `b` to `a` in clock ticks (positive if `a` is newer).
    @inlinable
    public static func distance(from b: UInt32, to a: UInt32) -> Int64 {
        Int64(Int32(bitPattern: a &- b))
    }
}
