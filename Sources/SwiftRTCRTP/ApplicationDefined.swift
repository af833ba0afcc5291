import SwiftRTCCore

/// An RTCP application-defined packet (RFC 3550 §6.7, PT 204).
/// ```
/// |V=2|P| subtype |   PT=APP=204  |             length            |
/// |                           SSRC/CSRC                           |
/// |                          name (ASCII)                         |
/// |                   application-dependent data                ...
/// ```
public struct ApplicationDefined: RTCPPacketBody {
    /// The RTCP packet type (PT) of this packet.
    public static let packetType = RTCPPacketType.application
    /// The 5-bit subtype.
    public var subtype: UInt8
    /// The synchronization source (SSRC).
    public var ssrc: UInt32
    /// Four ASCII characters.
    public var name: UInt32
    /// A multiple of 4 bytes.
    public var data: [UInt8]

    /// Creates the value from its fields.
    public init(subtype: UInt8, ssrc: UInt32, name: String, data: [UInt8]) {
        self.subtype = subtype & 0x1F
        self.ssrc = ssrc
        self.name = name.utf8.prefix(4).reduce(0) { $0 << 8 | UInt32($1) } << (8 * UInt32(4 - min(name.utf8.count, 4)))
        self.data = data + [UInt8](repeating: 0, count: (4 - data.count % 4) % 4)
    }

    public init(count: UInt8, body: UnsafeRawBufferPointer, offset: Int) throws(RTPError) {
        try Self.require(body, 8, "RTCP APP", offset)
        subtype = count
        ssrc = body.u32(0)
        name = body.u32(4)
        data = Array(body.slice(8, body.count - 8))
    }

    /// The name as text.
    public var nameString: String {
        String(decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: name >> $0) }, as: UTF8.self)
    }

    public var headerCount: UInt8 { subtype }
    public var bodyLength: Int { 8 + (data.count + 3) / 4 * 4 }

    public func writeBody(into b: UnsafeMutableRawBufferPointer) {
        b.put32(ssrc, at: 0)
        b.put32(name, at: 4)
        for i in 0..<bodyLength - 8 { b.put8(i < data.count ? data[i] : 0, at: 8 + i) }
    }
}
