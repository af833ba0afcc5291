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

/// Extends 16-bit sequence numbers to 64 bits by counting wrap-arounds (the cycles count of
/// RFC 3550 §A.1, and the SRTP rollover counter of RFC 3711 §3.3.1: the extended number's upper
/// bits, `extended >> 16`).
public struct SequenceUnwrapper: Sendable {
    private var last: Int64?

    /// Creates an empty value.
    public init() {}

    /// The extended sequence number of `sequence`. Late packets from before a wrap map below
    /// the wrap, not a whole cycle ahead.
    @inlinable
    public mutating func unwrap(_ sequence: UInt16) -> Int64 {
        let result = peek(sequence)
        if result > (lastValue ?? Int64.min) { lastValue = result }
        return result
    }

    @usableFromInline
    var lastValue: Int64? {
        get { last }
        set { last = newValue }
    }

    /// What ``unwrap(_:)`` would return, without remembering it.
    @inlinable
    public func peek(_ sequence: UInt16) -> Int64 {
        guard let lastValue else { return Int64(sequence) }
        return lastValue + Int64(SequenceNumber.distance(from: UInt16(truncatingIfNeeded: lastValue), to: sequence))
    }
}

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
