/// RTP sequence-number arithmetic with 16-bit wrap-around (RFC 3550 §A.1).
public enum SequenceNumber {
    /// Whether `a` comes after `b`, taking wrap-around into account: the shorter way round
    /// the 16-bit circle decides.
    @inlinable
    public static func isNewer(_ a: UInt16, than b: UInt16) -> Bool {
        a != b && a &- b < 0x8000
    }

    /// Signed distance from `b` to `a` along the shorter way round (positive if `a` is newer).
    @inlinable
    public static func distance(from b: UInt16, to a: UInt16) -> Int {
        Int(Int16(bitPattern: a &- b))
    }
}
