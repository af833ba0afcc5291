import SwiftRTCCore

/// The VP8 payload descriptor (RFC 7741 §4.2) that starts every VP8 RTP payload.
/// ```
///       0 1 2 3 4 5 6 7
///      +-+-+-+-+-+-+-+-+
///      |X|R|N|S|R| PID | (REQUIRED)
///      +-+-+-+-+-+-+-+-+
/// X:   |I|L|T|K| RSV   | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
/// I:   |M| PictureID   | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
///      |   PictureID   | (second byte if M = 1: 15-bit PictureID)
///      +-+-+-+-+-+-+-+-+
/// L:   |   TL0PICIDX   | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
/// T/K: |TID|Y| KEYIDX  | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
/// ```
public struct VP8PayloadDescriptor: Sendable, Hashable {
    /// N: the frame is not used as a reference.
    public var nonReference: Bool
    /// S: the payload starts a VP8 partition.
    public var startOfPartition: Bool
    /// PID: the partition index (0-7).
    public var partitionIndex: UInt8
    /// I: the PictureID (7 or 15 bits), if present.
    public var pictureID: UInt16?
    /// M: whether the PictureID is written in 15 bits.
    public var longPictureID: Bool
    /// L: TL0PICIDX, if present.
    public var tl0PictureIndex: UInt8?
    /// T: the temporal layer index (TID), if present.
    public var temporalLayer: UInt8?
    /// Y: layer sync (meaningful with T).
    public var layerSync: Bool
    /// K: KEYIDX, if present.
    public var keyIndex: UInt8?

    /// Creates the value from its fields.
    public init(
        nonReference: Bool = false,
        startOfPartition: Bool,
        partitionIndex: UInt8 = 0,
        pictureID: UInt16? = nil,
        longPictureID: Bool = true,
        tl0PictureIndex: UInt8? = nil,
        temporalLayer: UInt8? = nil,
        layerSync: Bool = false,
        keyIndex: UInt8? = nil
    ) {
        self.nonReference = nonReference
        self.startOfPartition = startOfPartition
        self.partitionIndex = partitionIndex & 7
        let long = longPictureID || (pictureID ?? 0) > 0x7F
        self.longPictureID = long
        self.pictureID = pictureID.map { $0 & (long ? 0x7FFF : 0x7F) }
        self.tl0PictureIndex = tl0PictureIndex
        self.temporalLayer = temporalLayer.map { $0 & 3 }
        self.layerSync = layerSync
        self.keyIndex = keyIndex.map { $0 & 0x1F }
    }

    /// Whether the payload starts a frame (S set on partition 0).
    @inlinable
    public var startsFrame: Bool { startOfPartition && partitionIndex == 0 }

    /// Parses the descriptor at the start of `payload`; returns it and its length.
    @inlinable
    public static func parse(_ payload: UnsafeRawBufferPointer) throws(RTPError) -> (VP8PayloadDescriptor, length: Int)
    {
        guard payload.count >= 1 else {
            throw .truncated(what: "VP8 payload descriptor", offset: 0, needed: 1, available: 0)
        }
        let first = payload.u8(0)
        var d = VP8PayloadDescriptor(
            nonReference: first & 0x20 != 0,
            startOfPartition: first & 0x10 != 0,
            partitionIndex: first & 7,
            longPictureID: false
        )
        var o = 1
        if first & 0x80 != 0 {
            guard payload.count > o else {
                throw .truncated(what: "VP8 descriptor extension byte", offset: o, needed: 1, available: 0)
            }
            let x = payload.u8(o)
            o += 1
            if x & 0x80 != 0 {
                guard payload.count > o else {
                    throw .truncated(what: "VP8 PictureID", offset: o, needed: 1, available: 0)
                }
                let m = payload.u8(o)
                if m & 0x80 != 0 {
                    guard payload.count > o + 1 else {
                        throw .truncated(
                            what: "VP8 15-bit PictureID",
                            offset: o,
                            needed: 2,
                            available: payload.count - o
                        )
                    }
                    d.pictureID = payload.u16(o) & 0x7FFF
                    d.longPictureID = true
                    o += 2
                } else {
                    d.pictureID = UInt16(m)
                    o += 1
                }
            }
            if x & 0x40 != 0 {
                guard payload.count > o else {
                    throw .truncated(what: "VP8 TL0PICIDX", offset: o, needed: 1, available: 0)
                }
                d.tl0PictureIndex = payload.u8(o)
                o += 1
            }
            if x & 0x30 != 0 {
                guard payload.count > o else {
                    throw .truncated(what: "VP8 TID/KEYIDX", offset: o, needed: 1, available: 0)
                }
                let t = payload.u8(o)
                if x & 0x20 != 0 {
                    d.temporalLayer = t >> 6
                    d.layerSync = t & 0x20 != 0
                }
                if x & 0x10 != 0 { d.keyIndex = t & 0x1F }
                o += 1
            }
        }
        return (d, o)
    }

    /// The descriptor's length on the wire.
    public var encodedLength: Int {
        let extended = pictureID != nil || tl0PictureIndex != nil || temporalLayer != nil || keyIndex != nil
        guard extended else { return 1 }
        return 2 + (pictureID == nil ? 0 : longPictureID ? 2 : 1) + (tl0PictureIndex == nil ? 0 : 1)
            + (temporalLayer == nil && keyIndex == nil ? 0 : 1)
    }

    /// Writes the descriptor at the start of `buffer` (which must hold ``encodedLength`` bytes).
    public func write(into buffer: UnsafeMutableRawBufferPointer) {
        let extended = encodedLength > 1
        buffer.put8(
            (extended ? 0x80 : 0) | (nonReference ? 0x20 : 0) | (startOfPartition ? 0x10 : 0) | partitionIndex,
            at: 0
        )
        guard extended else { return }
        buffer.put8(
            (pictureID != nil ? 0x80 : 0) | (tl0PictureIndex != nil ? 0x40 : 0) | (temporalLayer != nil ? 0x20 : 0)
                | (keyIndex != nil ? 0x10 : 0),
            at: 1
        )
        var o = 2
        if let pictureID {
            if longPictureID {
                buffer.put16(0x8000 | pictureID, at: o)
                o += 2
            } else {
                buffer.put8(UInt8(pictureID), at: o)
                o += 1
            }
        }
        if let tl0PictureIndex {
            buffer.put8(tl0PictureIndex, at: o)
            o += 1
        }
        if temporalLayer != nil || keyIndex != nil {
            buffer.put8((temporalLayer ?? 0) << 6 | (layerSync ? 0x20 : 0) | (keyIndex ?? 0), at: o)
        }
    }
}
