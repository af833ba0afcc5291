import SwiftRTCCore

/// A report block of SR and RR packets (RFC 3550 §6.4.1): reception statistics for one source.
/// ```
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// |                 SSRC_1 (SSRC of first source)                 |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// | fraction lost |       cumulative number of packets lost       |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |           extended highest sequence number received           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      interarrival jitter                      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                         last SR (LSR)                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                   delay since last SR (DLSR)                  |
/// +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// ```
public struct ReceptionReport: Sendable, Hashable {
    /// The synchronization source (SSRC).
    public var ssrc: UInt32
    /// Lost fraction since the last report, in 1/256.
    public var fractionLost: UInt8
    /// Cumulative packets lost (24-bit signed; negative with duplicates).
    public var cumulativeLost: Int32
    /// The highest sequence number received, with the wrap count in the upper 16 bits.
    public var extendedHighestSequence: UInt32
    /// Interarrival jitter in RTP timestamp units.
    public var jitter: UInt32
    /// The middle 32 bits of the last SR's NTP timestamp.
    public var lastSenderReport: UInt32
    /// Delay since that SR, in 1/65536 s.
    public var delaySinceLastSenderReport: UInt32

    /// Creates the value from its fields.
    public init(
        ssrc: UInt32,
        fractionLost: UInt8,
        cumulativeLost: Int32,
        extendedHighestSequence: UInt32,
        jitter: UInt32,
        lastSenderReport: UInt32,
        delaySinceLastSenderReport: UInt32
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = min(max(cumulativeLost, -0x80_0000), 0x7F_FFFF)
        self.extendedHighestSequence = extendedHighestSequence
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    /// The round trip this block measures when it arrives at `now` (the middle 32 bits of
    /// the NTP time then, ``SwiftRTCCore/NTPTime``), in seconds: RFC 3550 §6.4.1's
    /// A - LSR - DLSR in 1/65536 s, taken modulo 2^32 since those 32 bits wrap every
    /// 65,536 s (18.2 hours) of a call. Nil when the block refers to no sender report
    /// (LSR 0). A peer's LSR and DLSR can make any value up: "negative" round trips come out
    /// near 2^16 s, for the caller's limit to refuse.
    public func roundTripTime(arrivedAt now: UInt32) -> Double? {
        guard lastSenderReport != 0 else { return nil }
        return Double(now &- lastSenderReport &- delaySinceLastSenderReport) / 65536
    }

    static let length = 24

    init(_ b: UnsafeRawBufferPointer, at o: Int) {
        let lost = b.u24(o + 5)
        self.init(
            ssrc: b.u32(o),
            fractionLost: b.u8(o + 4),
            cumulativeLost: lost & 0x80_0000 != 0 ? Int32(lost) - 0x100_0000 : Int32(lost),
            extendedHighestSequence: b.u32(o + 8),
            jitter: b.u32(o + 12),
            lastSenderReport: b.u32(o + 16),
            delaySinceLastSenderReport: b.u32(o + 20)
        )
    }

    func write(into b: UnsafeMutableRawBufferPointer, at o: Int) {
        b.put32(ssrc, at: o)
        b.put8(fractionLost, at: o + 4)
        b.put24(UInt32(bitPattern: cumulativeLost) & 0xFF_FFFF, at: o + 5)
        b.put32(extendedHighestSequence, at: o + 8)
        b.put32(jitter, at: o + 12)
        b.put32(lastSenderReport, at: o + 16)
        b.put32(delaySinceLastSenderReport, at: o + 20)
    }

    static func parseList(
        count: UInt8,
        _ body: UnsafeRawBufferPointer,
        from start: Int,
        offset: Int,
        what: StaticString
    ) throws(RTPError) -> [ReceptionReport] {
        let needed = start + Int(count) * length
        guard body.count >= needed else {
            throw .truncated(what: what, offset: offset, needed: needed, available: body.count)
        }
        var reports: [ReceptionReport] = []
        reports.reserveCapacity(Int(count))
        for i in 0..<Int(count) { reports.append(ReceptionReport(body, at: start + i * length)) }
        return reports
    }
}
