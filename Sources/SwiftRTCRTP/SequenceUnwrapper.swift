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
