import SwiftRTCCore

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
        case (SenderReport.packetType, _):
            self = .senderReport(try SenderReport(count: count, body: body, offset: offset))
        case (ReceiverReport.packetType, _):
            self = .receiverReport(try ReceiverReport(count: count, body: body, offset: offset))
        case (SourceDescription.packetType, _):
            self = .sourceDescription(try SourceDescription(count: count, body: body, offset: offset))
        case (Goodbye.packetType, _): self = .goodbye(try Goodbye(count: count, body: body, offset: offset))
        case (ApplicationDefined.packetType, _):
            self = .application(try ApplicationDefined(count: count, body: body, offset: offset))
        case (GenericNACK.packetType, GenericNACK.format):
            self = .nack(try GenericNACK(count: count, body: body, offset: offset))
        case (TransportLayerCC.packetType, TransportLayerCC.format):
            self = .transportFeedback(try TransportLayerCC(count: count, body: body, offset: offset))
        case (PictureLossIndication.packetType, PictureLossIndication.format):
            self = .pictureLossIndication(try PictureLossIndication(count: count, body: body, offset: offset))
        case (FullIntraRequest.packetType, FullIntraRequest.format):
            self = .fullIntraRequest(try FullIntraRequest(count: count, body: body, offset: offset))
        case (ReceiverEstimatedMaximumBitrate.packetType, ReceiverEstimatedMaximumBitrate.format)
        where ReceiverEstimatedMaximumBitrate.matches(body):
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
        let body = UnsafeMutableRawBufferPointer(rebasing: buffer[4..<4 + length])
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
            for i in 0..<length { body.put8(i < bytes.count ? bytes[i] : 0, at: i) }
        }
        return 4 + length
    }

    /// Writes `packets` back to back as one compound datagram and returns its length.
    public static func writeCompound(
        _ packets: [RTCPPacket],
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(RTPError) -> Int {
        var offset = 0
        for packet in packets {
            offset += try packet.write(into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]))
        }
        return offset
    }
}
