import SwiftRTCCore

/// An RTCP sender report (RFC 3550 §6.4.1, PT 200).
/// ```
/// |V=2|P|    RC   |   PT=SR=200   |             length            |
/// |                         SSRC of sender                        |
/// |              NTP timestamp, most significant word             |
/// |             NTP timestamp, least significant word             |
/// |                         RTP timestamp                         |
/// |                     sender's packet count                     |
/// |                      sender's octet count                     |
/// |                 report blocks (24 bytes each) ...             |
/// ```
public struct SenderReport: RTCPPacketBody {
    /// The RTCP packet type (PT) of this packet.
    public static let packetType = RTCPPacketType.senderReport
    /// The synchronization source (SSRC).
    public var ssrc: UInt32
    /// NTP time (32.32 fixed point seconds since 1900).
    public var ntpTimestamp: UInt64
    /// The RTP timestamp matching the NTP time.
    public var rtpTimestamp: UInt32
    /// Packets sent since the start.
    public var packetCount: UInt32
    /// Payload octets sent since the start.
    public var octetCount: UInt32
    /// Reception report blocks, at most 31 are written.
    public var reports: [ReceptionReport]

    /// Creates the value from its fields.
    public init(
        ssrc: UInt32,
        ntpTimestamp: UInt64,
        rtpTimestamp: UInt32,
        packetCount: UInt32,
        octetCount: UInt32,
        reports: [ReceptionReport] = []
    ) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reports = reports
    }

    public init(count: UInt8, body: UnsafeRawBufferPointer, offset: Int) throws(RTPError) {
        try Self.require(body, 24 + Int(count) * ReceptionReport.length, "RTCP sender report", offset)
        ssrc = body.u32(0)
        ntpTimestamp = body.u64(4)
        rtpTimestamp = body.u32(12)
        packetCount = body.u32(16)
        octetCount = body.u32(20)
        reports = try ReceptionReport.parseList(
            count: count,
            body,
            from: 24,
            offset: offset,
            what: "RTCP sender report blocks"
        )
    }

    public var headerCount: UInt8 { UInt8(min(reports.count, 31)) }
    public var bodyLength: Int { 24 + Int(headerCount) * ReceptionReport.length }

    public func writeBody(into b: UnsafeMutableRawBufferPointer) {
        b.put32(ssrc, at: 0)
        b.put64(ntpTimestamp, at: 4)
        b.put32(rtpTimestamp, at: 12)
        b.put32(packetCount, at: 16)
        b.put32(octetCount, at: 20)
        for (i, report) in reports.prefix(31).enumerated() {
            report.write(into: b, at: 24 + i * ReceptionReport.length)
        }
    }
}
