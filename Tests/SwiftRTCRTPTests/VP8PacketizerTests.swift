import RTPFixtureSupport
import SwiftRTCCore
import Testing

@testable import SwiftRTCRTP

@Suite struct VP8PacketizerTests {
    static func keyframe(size: Int, width: UInt16 = 320, height: UInt16 = 240) -> [UInt8] {
        var frame: [UInt8] = [
            0x50, 0x09, 0x00, 0x9D, 0x01, 0x2A, UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF),
            UInt8(height >> 8),
        ]
        while frame.count < size { frame.append(UInt8(truncatingIfNeeded: frame.count)) }
        return frame
    }

    func packetize(
        _ frame: [UInt8],
        _ packetizer: inout VP8Packetizer,
        timestamp: UInt32,
        temporalLayer: (id: UInt8, sync: Bool)? = nil
    ) throws -> [[UInt8]] {
        var packets: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 1500)
        _ = try frame.withUnsafeBytes { f in
            try buffer.withUnsafeMutableBytes { out in
                try packetizer.packetize(
                    f,
                    timestamp: timestamp,
                    temporalLayer: temporalLayer,
                    into: out,
                    extensions: { (w: inout RTPPacketWriter) throws(RTPError) in
                        try w.appendExtension(SDESMid(value: "1"), id: 4)
                    },
                    emit: { packets.append(Array($0)) }
                )
            }
        }
        return packets
    }

    /// Temporal layers (RFC 7741 §4.2): every packet of a frame carries its TID and Y, and the
    /// TL0PICIDX that each base-layer frame moves on by one (higher layers carry the one they
    /// follow, wrapping at 255); a stream of one layer carries none of them.
    @Test func temporalLayersCarryTIDAndTL0PICIDX() throws {
        var packetizer = VP8Packetizer(ssrc: 5, payloadType: 96, mtu: 1200)
        packetizer.tl0PictureIndex = 254
        let layers: [(id: UInt8, sync: Bool)] = [(0, true), (2, true), (1, true), (2, false), (0, true)]
        var seen: [(tid: UInt8?, sync: Bool, tl0: UInt8?)] = []
        for (index, layer) in layers.enumerated() {
            let packets = try packetize(
                Self.keyframe(size: 2000),
                &packetizer,
                timestamp: UInt32(index * 3000),
                temporalLayer: layer
            )
            #expect(packets.count == 2)
            for bytes in packets {
                try bytes.withRTP { (p: RTPPacket) throws in
                    let (d, _) = try VP8PayloadDescriptor.parse(p.payload)
                    seen.append((d.temporalLayer, d.layerSync, d.tl0PictureIndex))
                }
            }
        }
        #expect(seen.map(\.tid) == [0, 0, 2, 2, 1, 1, 2, 2, 0, 0])
        #expect(seen.map(\.sync) == [true, true, true, true, true, true, false, false, true, true])
        #expect(seen.map(\.tl0) == [255, 255, 255, 255, 255, 255, 255, 255, 0, 0])
        let plain = try packetize(Self.keyframe(size: 100), &packetizer, timestamp: 20_000)
        try plain[0].withRTP { (p: RTPPacket) throws in
            let (d, length) = try VP8PayloadDescriptor.parse(p.payload)
            #expect(d.temporalLayer == nil && d.tl0PictureIndex == nil && length == 4)
        }
    }

    @Test(arguments: [1, 10, 1000, 1169, 1170, 5000])
    func splitsToTheMTUAndReassembles(size: Int) throws {
        var packetizer = VP8Packetizer(ssrc: 5, payloadType: 96, sequenceNumber: 65534, pictureID: 0x7FFF, mtu: 1200)
        let frame = Self.keyframe(size: max(size, 10))
        let packets = try packetize(frame, &packetizer, timestamp: 9000)
        var depacketizer = VP8Depacketizer()
        for (i, bytes) in packets.enumerated() {
            #expect(bytes.count <= 1200)
            try bytes.withRTP { (p: RTPPacket) throws in
                #expect(p.sequenceNumber == 65534 &+ UInt16(i))
                #expect(p.marker == (i == packets.count - 1))
                #expect(try p.extensionValue(SDESMid.self, id: 4)?.value == "1")
                let (d, _) = try VP8PayloadDescriptor.parse(p.payload)
                #expect(d.startOfPartition == (i == 0) && d.pictureID == 0x7FFF && d.longPictureID)
                #expect(depacketizer.push(p) == (i == packets.count - 1))
            }
        }
        #expect(
            depacketizer.makeFrame()
                == EncodedFrame(codec: .vp8, data: frame, timestamp: 9000, isKeyframe: true, width: 320, height: 240)
        )
        #expect(packetizer.pictureID == 0 && packetizer.sequenceNumber == 65534 &+ UInt16(packets.count))
    }

    @Test func tooSmallABufferThrows() throws {
        var packetizer = VP8Packetizer(ssrc: 1, payloadType: 96, mtu: 16)
        var out = [UInt8](repeating: 0, count: 16)
        #expect(throws: RTPError.self) {
            try Self.keyframe(size: 100).withUnsafeBytes { f in
                try out.withUnsafeMutableBytes { o in try packetizer.packetize(f, timestamp: 0, into: o) { _ in } }
            }
        }
    }
}
