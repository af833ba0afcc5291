import SwiftRTCCore

/// An RTCP goodbye (RFC 3550 §6.6, PT 203): sources leaving, with an optional reason.
/// ```
/// |V=2|P|    SC   |   PT=BYE=203  |             length            |
/// |                           SSRC/CSRC                           |
/// :                              ...                              :
/// |     length    |               reason for leaving            ... (opt)
/// ```
public struct Goodbye: RTCPPacketBody {
    /// The RTCP packet type (PT) of this packet.
    public static let packetType = RTCPPacketType.goodbye
    /// The SSRCs/CSRCs leaving.
    public var sources: [UInt32]
    /// The reason for leaving (UTF-8, up to 255 bytes), empty if none.
    public var reason: [UInt8]

    /// Creates the value from its fields.
    public init(sources: [UInt32], reason: String = "") {
        self.sources = sources
        self.reason = Array(reason.utf8.prefix(255))
    }

    public init(count: UInt8, body: UnsafeRawBufferPointer, offset: Int) throws(RTPError) {
        try Self.require(body, Int(count) * 4, "RTCP BYE sources", offset)
        sources = (0..<Int(count)).map { body.u32($0 * 4) }
        let o = Int(count) * 4
        reason = []
        if o < body.count {
            let length = Int(body.u8(o))
            try Self.require(body, o + 1 + length, "RTCP BYE reason", offset)
            reason = Array(body.slice(o + 1, length))
        }
    }

    /// The reason as text.
    public var reasonText: String { String(decoding: reason, as: UTF8.self) }
    public var headerCount: UInt8 { UInt8(min(sources.count, 31)) }
    public var bodyLength: Int {
        Int(headerCount) * 4 + (reason.isEmpty ? 0 : (1 + min(reason.count, 255) + 3) / 4 * 4)
    }

    public func writeBody(into b: UnsafeMutableRawBufferPointer) {
        for (i, source) in sources.prefix(31).enumerated() { b.put32(source, at: i * 4) }
        guard !reason.isEmpty else { return }
        var o = Int(headerCount) * 4
        let text = reason.prefix(255)
        b.put8(UInt8(text.count), at: o)
        for byte in text {
            o += 1
            b.put8(byte, at: o)
        }
        o += 1
        while o < bodyLength {
            b.put8(0, at: o)
            o += 1
        }
    }
}
