import SwiftRTCCore

/// Splits VP8 frames into RTP packets (RFC 7741 §4): each packet carries a payload descriptor
/// with a 15-bit PictureID, S set on the first packet, the marker bit on the last, and for a
/// frame of a temporal layer its TID, Y and TL0PICIDX (§4.2); packets fill up to ``mtu``
/// bytes. Packets are written one at a time into a caller-provided buffer and handed to a
/// closure; nothing is allocated.
public struct VP8Packetizer: Sendable {
    /// The synchronization source (SSRC).
    public var ssrc: UInt32
    /// The RTP payload type.
    public var payloadType: UInt8
    /// The next packet's sequence number.
    public var sequenceNumber: UInt16
    /// The next frame's PictureID (15 bits, wraps).
    public var pictureID: UInt16
    /// The largest RTP packet to write (header, extensions and payload).
    public var mtu: Int
    /// The TL0PICIDX of the last base-layer frame (temporal layers): each one adds 1, and the
    /// frames of higher layers carry the index of the one they follow.
    public var tl0PictureIndex: UInt8 = 0

    /// Creates the value from its fields.
    public init(ssrc: UInt32, payloadType: UInt8, sequenceNumber: UInt16 = 0, pictureID: UInt16 = 0, mtu: Int = 1200) {
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.pictureID = pictureID & 0x7FFF
        self.mtu = mtu
    }

    /// Packetizes one frame (`temporalLayer`: its TID and Y, when the stream has temporal
    /// layers). For each packet, `extensions` may add header extensions (it runs before the
    /// payload is written), then `emit` gets the finished packet. Returns the number of packets.
    @inlinable
    @discardableResult
    public mutating func packetize(
        _ frame: UnsafeRawBufferPointer,
        timestamp: UInt32,
        temporalLayer: (id: UInt8, sync: Bool)? = nil,
        into buffer: UnsafeMutableRawBufferPointer,
        extensions: (inout RTPPacketWriter) throws(RTPError) -> Void = { _ throws(RTPError) in },
        emit: (UnsafeRawBufferPointer) throws(RTPError) -> Void
    ) throws(RTPError) -> Int {
        let out = UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(buffer.count, mtu)])
        var offset = 0, packets = 0
        if temporalLayer?.id == 0 { tl0PictureIndex &+= 1 }
        repeat {
            let descriptor = VP8PayloadDescriptor(
                startOfPartition: offset == 0,
                pictureID: pictureID,
                longPictureID: true,
                tl0PictureIndex: temporalLayer == nil ? nil : tl0PictureIndex,
                temporalLayer: temporalLayer?.id,
                layerSync: temporalLayer?.sync ?? false
            )
            var writer = try RTPPacketWriter(
                into: out,
                header: RTPHeader(
                    payloadType: payloadType,
                    sequenceNumber: sequenceNumber,
                    timestamp: timestamp,
                    ssrc: ssrc
                )
            )
            try extensions(&writer)
            let space = try writer.payloadSpace()
            let room = space.count - descriptor.encodedLength
            guard room > 0 else {
                throw .bufferTooSmall(needed: writer.count + descriptor.encodedLength + 1, available: out.count)
            }
            let chunk = min(room, frame.count - offset)
            descriptor.write(into: space)
            UnsafeMutableRawBufferPointer(rebasing: space[descriptor.encodedLength...]).put(
                frame.slice(offset, chunk),
                at: 0
            )
            try writer.advancePayload(by: descriptor.encodedLength + chunk)
            offset += chunk
            if offset == frame.count { out.put8(out.load(fromByteOffset: 1, as: UInt8.self) | 0x80, at: 1) }
            let length = try writer.finish()
            try emit(UnsafeRawBufferPointer(rebasing: out[..<length]))
            sequenceNumber &+= 1
            packets += 1
        } while offset < frame.count
        pictureID = (pictureID &+ 1) & 0x7FFF
        return packets
    }
}
