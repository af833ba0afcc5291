/// The body of one RTCP packet type: read from and written to the bytes after the common
/// header (RFC 3550 §6.4):
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P| RC/FMT  |      PT       |    length (words - 1)         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public protocol RTCPPacketBody: Sendable, Hashable {
    /// The packet type (PT).
    static var packetType: UInt8 { get }
    /// The 5-bit count or feedback message type (FMT) of the header.
    var headerCount: UInt8 { get }
    /// Reads the body (padding removed); `offset` is the body's offset in the datagram, for errors.
    init(count: UInt8, body: UnsafeRawBufferPointer, offset: Int) throws(RTPError)
    /// The body's length in bytes, a multiple of 4.
    var bodyLength: Int { get }
    /// Writes the body into a buffer of exactly ``bodyLength`` bytes.
    func writeBody(into buffer: UnsafeMutableRawBufferPointer)
}

/// The RTCP packet types (RFC 3550, 4585, 3611).
public enum RTCPPacketType {
    /// The packet type value.
    public static let senderReport: UInt8 = 200
    /// The packet type value.
    public static let receiverReport: UInt8 = 201
    /// The packet type value.
    public static let sourceDescription: UInt8 = 202
    /// The packet type value.
    public static let goodbye: UInt8 = 203
    /// The packet type value.
    public static let application: UInt8 = 204
    /// The packet type value.
    public static let transportFeedback: UInt8 = 205
    /// The packet type value.
    public static let payloadFeedback: UInt8 = 206
    /// The packet type value.
    public static let extendedReport: UInt8 = 207
}

/// One RTCP packet of a compound (or reduced-size, RFC 5506) datagram, parsed into values.
public enum RTCPPacket: Sendable, Hashable {
    case senderReport(SenderReport)
    case receiverReport(ReceiverReport)
    case sourceDescription(SourceDescription)
    case goodbye(Goodbye)
    case application(ApplicationDefined)
    case nack(GenericNACK)
    case transportFeedback(TransportLayerCC)
    case pictureLossIndication(PictureLossIndication)
    case fullIntraRequest(FullIntraRequest)
    case remb(ReceiverEstimatedMaximumBitrate)
    /// A type or feedback format this module does not decode (e.g. XR): kept as bytes.
    case unknown(packetType: UInt8, count: UInt8, body: [UInt8])

    /// A short name for the packet's type: "SR", "RR", "SDES", "BYE", "APP", "NACK", "TWCC",
    /// "PLI", "FIR", "REMB", or "PT<n>/<fmt>".
    public var name: String {
        switch self {
        case .senderReport: "SR"
        case .receiverReport: "RR"
        case .sourceDescription: "SDES"
        case .goodbye: "BYE"
        case .application: "APP"
        case .nack: "NACK"
        case .transportFeedback: "TWCC"
        case .pictureLossIndication: "PLI"
        case .fullIntraRequest: "FIR"
        case .remb: "REMB"
        case let .unknown(type, count, _): type == RTCPPacketType.extendedReport ? "XR" : "PT\(type)/\(count)"
        }
    }

    /// Parses one packet from its view.
    public init(_ view: RTCPPacketView) throws(RTPError) {
        let body = view.body, count = view.count, offset = view.offset + 4
        switch (view.packetType, count) {
        case (SenderReport.packetType, _): self = .senderReport(try SenderReport(count: count, body: body, offset: offset))
        case (ReceiverReport.packetType, _): self = .receiverReport(try ReceiverReport(count: count, body: body, offset: offset))
        case (SourceDescription.packetType, _): self = .sourceDescription(try SourceDescription(count: count, body: body, offset: offset))
        case (Goodbye.packetType, _): self = .goodbye(try Goodbye(count: count, body: body, offset: offset))
        case (ApplicationDefined.packetType, _): self = .application(try ApplicationDefined(count: count, body: body, offset: offset))
        case (GenericNACK.packetType, GenericNACK.format): self = .nack(try GenericNACK(count: count, body: body, offset: offset))
        case (TransportLayerCC.packetType, TransportLayerCC.format): self = .transportFeedback(try TransportLayerCC(count: count, body: body, offset: offset))
        case (PictureLossIndication.packetType, PictureLossIndication.format): self = .pictureLossIndication(try PictureLossIndication(count: count, body: body, offset: offset))
        case (FullIntraRequest.packetType, FullIntraRequest.format): self = .fullIntraRequest(try FullIntraRequest(count: count, body: body, offset: offset))
        case (ReceiverEstimatedMaximumBitrate.packetType, ReceiverEstimatedMaximumBitrate.format) where ReceiverEstimatedMaximumBitrate.matches(body):
            self = .remb(try ReceiverEstimatedMaximumBitrate(count: count, body: body, offset: offset))
        default: self = .unknown(packetType: view.packetType, count: count, body: Array(body))
        }
    }

    /// Parses every packet of a compound or reduced-size datagram.
    public static func parseCompound(_ bytes: UnsafeRawBufferPointer) throws(RTPError) -> [RTCPPacket] {
        var result: [RTCPPacket] = []
        var iterator = RTCPCompoundIterator(bytes)
        while let view = try iterator.next() { result.append(try RTCPPacket(view)) }
        return result
    }

    @usableFromInline
    var parts: (type: UInt8, count: UInt8, length: Int) {
        switch self {
        case let .senderReport(p): (SenderReport.packetType, p.headerCount, p.bodyLength)
        case let .receiverReport(p): (ReceiverReport.packetType, p.headerCount, p.bodyLength)
        case let .sourceDescription(p): (SourceDescription.packetType, p.headerCount, p.bodyLength)
        case let .goodbye(p): (Goodbye.packetType, p.headerCount, p.bodyLength)
        case let .application(p): (ApplicationDefined.packetType, p.headerCount, p.bodyLength)
        case let .nack(p): (GenericNACK.packetType, p.headerCount, p.bodyLength)
        case let .transportFeedback(p): (TransportLayerCC.packetType, p.headerCount, p.bodyLength)
        case let .pictureLossIndication(p): (PictureLossIndication.packetType, p.headerCount, p.bodyLength)
        case let .fullIntraRequest(p): (FullIntraRequest.packetType, p.headerCount, p.bodyLength)
        case let .remb(p): (ReceiverEstimatedMaximumBitrate.packetType, p.headerCount, p.bodyLength)
        case let .unknown(type, count, body): (type, count, (body.count + 3) / 4 * 4)
        }
    }

    /// The packet's length on the wire.
    public var encodedLength: Int { 4 + parts.length }

    /// Writes the packet at the start of `buffer` and returns its length.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        let (type, count, length) = parts
        guard buffer.count >= 4 + length else { throw .bufferTooSmall(needed: 4 + length, available: buffer.count) }
        guard length / 4 <= 0xFFFF else { throw .invalidField(what: "RTCP length", offset: 2, value: length / 4) }
        buffer.put8(0x80 | (count & 0x1F), at: 0)
        buffer.put8(type, at: 1)
        buffer.put16(UInt16(length / 4), at: 2)
        let body = UnsafeMutableRawBufferPointer(rebasing: buffer[4 ..< 4 + length])
        switch self {
        case let .senderReport(p): p.writeBody(into: body)
        case let .receiverReport(p): p.writeBody(into: body)
        case let .sourceDescription(p): p.writeBody(into: body)
        case let .goodbye(p): p.writeBody(into: body)
        case let .application(p): p.writeBody(into: body)
        case let .nack(p): p.writeBody(into: body)
        case let .transportFeedback(p): p.writeBody(into: body)
        case let .pictureLossIndication(p): p.writeBody(into: body)
        case let .fullIntraRequest(p): p.writeBody(into: body)
        case let .remb(p): p.writeBody(into: body)
        case let .unknown(_, _, bytes):
            for i in 0 ..< length { body.put8(i < bytes.count ? bytes[i] : 0, at: i) }
        }
        return 4 + length
    }

    /// Writes `packets` back to back as one compound datagram and returns its length.
    public static func writeCompound(_ packets: [RTCPPacket], into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        var offset = 0
        for packet in packets {
            offset += try packet.write(into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]))
        }
        return offset
    }
}

/// One RTCP packet in a datagram, not yet decoded: its header fields and body bytes.
public struct RTCPPacketView {
    @usableFromInline
    init(offset: Int, count: UInt8, packetType: UInt8, body: UnsafeRawBufferPointer) {
        self.offset = offset
        self.count = count
        self.packetType = packetType
        self.body = body
    }

    /// Where the packet starts in the datagram.
    public let offset: Int
    /// The 5-bit count (RC/SC) or feedback format (FMT).
    public let count: UInt8
    /// The packet type (PT).
    public let packetType: UInt8
    /// The body after the 4-byte header, without padding.
    public let body: UnsafeRawBufferPointer
}

/// Walks the packets of a compound or reduced-size RTCP datagram without copying, checking
/// version, lengths and padding.
public struct RTCPCompoundIterator {
    @usableFromInline let bytes: UnsafeRawBufferPointer
    @usableFromInline var offset = 0

    /// Creates the value from its fields.
    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The next packet, nil at the end; throws on a malformed header.
    @inlinable
    public mutating func next() throws(RTPError) -> RTCPPacketView? {
        guard offset < bytes.count else { return nil }
        let left = bytes.count - offset
        guard left >= 4 else { throw .truncated(what: "RTCP header", offset: offset, needed: 4, available: left) }
        let first = bytes.u8(offset)
        guard first >> 6 == 2 else { throw .invalidField(what: "RTCP version", offset: offset, value: Int(first >> 6)) }
        let length = (Int(bytes.u16(offset + 2)) + 1) * 4
        guard length <= left else { throw .truncated(what: "RTCP packet", offset: offset, needed: length, available: left) }
        var bodyLength = length - 4
        if first & 0x20 != 0 {
            let padding = Int(bytes.u8(offset + length - 1))
            guard padding >= 1, padding <= bodyLength else {
                throw .invalidField(what: "RTCP padding count", offset: offset + length - 1, value: padding)
            }
            bodyLength -= padding
        }
        let view = RTCPPacketView(offset: offset, count: first & 0x1F, packetType: bytes.u8(offset + 1), body: bytes.slice(offset + 4, bodyLength))
        offset += length
        return view
    }
}

extension RTCPPacketBody {
    @inlinable
    static func require(_ body: UnsafeRawBufferPointer, _ length: Int, _ what: StaticString, _ offset: Int) throws(RTPError) {
        guard body.count >= length else { throw .truncated(what: what, offset: offset, needed: length, available: body.count) }
    }
}
