import RTPFixtureSupport
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

    func packetize(_ frame: [UInt8], _ packetizer: inout VP8Packetizer, timestamp: UInt32) throws -> [[UInt8]] {
        var packets: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 1500)
        _ = try frame.withUnsafeBytes { f in
            try buffer.withUnsafeMutableBytes { out in
                try packetizer.packetize(
                    f,
                    timestamp: timestamp,
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
