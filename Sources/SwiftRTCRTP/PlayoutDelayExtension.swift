import SwiftRTCCore

/// `playout-delay`: the sender's bounds on the receiver's playout delay, in 10 ms units.
/// ```
///  0                   1                   2
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |       MIN delay       |       MAX delay       |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct PlayoutDelay: RTPHeaderExtension, Sendable, Hashable {
    /// The URI that `a=extmap` names this extension by.
    public static let uri = "http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"
    /// Minimum delay in 10 ms units (12 bits).
    public var minimum: UInt16
    /// Maximum delay in 10 ms units (12 bits).
    public var maximum: UInt16

    /// Creates the value from its fields.
    public init(minimum: UInt16, maximum: UInt16) {
        self.minimum = min(minimum, 0xFFF)
        self.maximum = min(maximum, 0xFFF)
    }

    /// The bounds in milliseconds.
    public var milliseconds: ClosedRange<Int> { Int(minimum) * 10...max(Int(minimum), Int(maximum)) * 10 }

    @inlinable
    public init(parsing data: UnsafeRawBufferPointer) throws(RTPError) {
        try Self.require(data, 3, "playout-delay")
        let raw = data.u24(0)
        minimum = UInt16(raw >> 12)
        maximum = UInt16(raw & 0xFFF)
    }

    public var encodedLength: Int { 3 }
    public func encode(into buffer: UnsafeMutableRawBufferPointer) {
        buffer.put24(UInt32(minimum) << 12 | UInt32(maximum), at: 0)
    }
}
