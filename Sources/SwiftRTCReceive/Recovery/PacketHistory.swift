import SwiftRTCCore
import SwiftRTCRTP

/// The packets a sender sent recently, kept to answer NACKs with RTX (RFC 4588). Packets are
/// copied into slots that grow to the stream's packet size within its first packets, then
/// are not allocated again: no allocation per packet.
public final class PacketHistory {
    let slots: PacketSlots
    var unwrapper = SequenceUnwrapper()
    /// The RTX stream's next sequence number.
    public var rtxSequenceNumber: UInt16

    /// Keeps the last `capacity` packets of up to `slotSize` bytes.
    public init(capacity: Int = 1024, slotSize: Int = 1500, rtxSequenceNumber: UInt16 = 0) {
        slots = PacketSlots(capacity: capacity, slotSize: slotSize)
        self.rtxSequenceNumber = rtxSequenceNumber
    }

    /// Remembers a sent packet (before SRTP protection). Throws if it is not RTP or too large.
    public func store(_ bytes: UnsafeRawBufferPointer, sentAt time: Double = 0) throws(RTPError) {
        guard bytes.count <= slots.slotSize else {
            throw .bufferTooSmall(needed: bytes.count, available: slots.slotSize)
        }
        let packet = try RTPPacket(parsing: bytes)
        slots.store(bytes, sequence: unwrapper.unwrap(packet.sequenceNumber), arrival: time)
    }

    /// The packet sent with `sequenceNumber`, if still kept (valid until the next ``store(_:sentAt:)``).
    public func packet(_ sequenceNumber: UInt16) -> RTPPacket? {
        guard let bytes = slots.bytes(unwrapper.peek(sequenceNumber)) else { return nil }
        return try? RTPPacket(parsing: bytes)
    }

    /// Writes the RTX packet that resends `sequenceNumber` into `buffer` and returns its
    /// length, or nil if the packet is no longer kept. `renamingExtension`: a header extension
    /// element the RTX packet carries under another id (``RTXPacket/wrap(_:payloadType:ssrc:sequenceNumber:renamingExtension:into:)``).
    public func retransmission(
        of sequenceNumber: UInt16,
        rtxPayloadType: UInt8,
        rtxSSRC: UInt32,
        renamingExtension: (from: UInt8, to: UInt8)? = nil,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(RTPError) -> Int? {
        guard let original = packet(sequenceNumber) else { return nil }
        let length = try RTXPacket.wrap(
            original,
            payloadType: rtxPayloadType,
            ssrc: rtxSSRC,
            sequenceNumber: rtxSequenceNumber,
            renamingExtension: renamingExtension,
            into: buffer
        )
        rtxSequenceNumber &+= 1
        return length
    }
}
