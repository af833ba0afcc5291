import SwiftRTCCore

/// An RTCP receiver report (RFC 3550 §6.4.2, PT 201).
/// ```
/// |V=2|P|    RC   |   PT=RR=201   |             length            |
/// |                     SSRC of packet sender                     |
/// |                 report blocks (24 bytes each) ...             |
/// ```
public struct ReceiverReport: RTCPPacketBody {
    /// The RTCP packet type (PT) of this packet.
    public static let packetType = RTCPPacketType.receiverReport
    /// The synchronization source (SSRC).
    public var ssrc: UInt32
    /// Reception report blocks, at most 31 are written.
    public var reports: [ReceptionReport]

    /// Creates the value from its fields.
    public init(ssrc: UInt32, reports: [ReceptionReport] = []) {
        self.ssrc = ssrc
        self.reports = reports
    }

    public init(count: UInt8, body: UnsafeRawBufferPointer, offset: Int) throws(RTPError) {
        try Self.require(body, 4 + Int(count) * ReceptionReport.length, "RTCP receiver report", offset)
        ssrc = body.u32(0)
        reports = try ReceptionReport.parseList(
            count: count,
            body,
            from: 4,
            offset: offset,
            what: "RTCP receiver report blocks"
        )
    }

    public var headerCount: UInt8 { UInt8(min(reports.count, 31)) }
    public var bodyLength: Int { 4 + Int(headerCount) * ReceptionReport.length }

    public func writeBody(into b: UnsafeMutableRawBufferPointer) {
        b.put32(ssrc, at: 0)
        for (i, report) in reports.prefix(31).enumerated() { report.write(into: b, at: 4 + i * ReceptionReport.length) }
    }
}
