import SwiftRTCCore

/// `abs-send-time`: the send time as 24-bit 6.18 fixed-point seconds (wraps every 64 s).
/// ```
///  0                   1                   2
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  seconds (6)|      fraction of a second (18)    |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct AbsSendTime: RTPHeaderExtension, Sendable, Hashable {
    /// The URI that `a=extmap` names this extension by.
    public static let uri = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    /// The raw 24-bit value.
    public var value: UInt32

    /// Creates the value.
    public init(value: UInt32) { self.value = value & 0xFF_FFFF }

    /// From an NTP timestamp (32.32 fixed point): its middle 24 bits.
    public init(ntp: UInt64) { value = UInt32(truncatingIfNeeded: ntp >> 14) & 0xFF_FFFF }

    /// The time in seconds (0..<64).
    public var seconds: Double { Double(value) / Double(1 << 18) }

    @inlinable
    public init(parsing data: UnsafeRawBufferPointer) throws(RTPError) {
        try Self.require(data, 3, "abs-send-time")
        value = data.u24(0)
    }

    public var encodedLength: Int { 3 }
    public func encode(into buffer: UnsafeMutableRawBufferPointer) { buffer.put24(value, at: 0) }
}
