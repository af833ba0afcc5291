import RTPFixtureSupport
import Testing

@testable import SwiftRTCRTP

@Suite struct VP8DepacketizerTests {
    @Test func framesAcrossMissingPacketsAreDropped() throws {
        var packetizer = VP8Packetizer(ssrc: 1, payloadType: 96, mtu: 300)
        var packets: [[UInt8]] = []
        var out = [UInt8](repeating: 0, count: 300)
        for (n, size) in [1000, 800].enumerated() {
            _ = try VP8PacketizerTests.keyframe(size: size).withUnsafeBytes { f in
                try out.withUnsafeMutableBytes { o in
                    try packetizer.packetize(f, timestamp: UInt32(n) * 3000, into: o) { packets.append(Array($0)) }
                }
            }
        }
        var depacketizer = VP8Depacketizer()
        var completed = 0
        for (i, bytes) in packets.enumerated() where i != 1 {
            try bytes.withRTP { if depacketizer.push($0) { completed += 1 } }
        }
        #expect(completed == 1 && depacketizer.droppedFrames == 1 && depacketizer.frame.timestamp == 3000)
    }

    func packet(_ sequence: UInt16, timestamp: UInt32, marker: Bool, payload: [UInt8]) throws -> [UInt8] {
        try writeRTP(
            RTPHeader(marker: marker, payloadType: 96, sequenceNumber: sequence, timestamp: timestamp, ssrc: 1)
        ) { w in
            try payload.withUnsafeBytes { try w.appendPayload($0) }
        }
    }

    func push(_ depacketizer: inout VP8Depacketizer, _ bytes: [UInt8]) throws -> Bool {
        try bytes.withRTP { depacketizer.push($0) }
    }

    @Test func paddingFillersMalformedPayloadsAndTimestampChanges() throws {
        var depacketizer = VP8Depacketizer()
        let start: [UInt8] = [0x10, 0x31, 0x01, 0x00, 0xAA]  // S=1 PID=0, delta frame header
        let middle: [UInt8] = [0x00, 0xBB]
        // A frame across a padding-only filler: the filler keeps the sequence, adds nothing.
        var filler = try packet(2, timestamp: 0, marker: false, payload: [])
        filler += [0, 0, 3]
        filler[0] |= 0x20
        #expect(!(try push(&depacketizer, packet(1, timestamp: 100, marker: false, payload: start))))
        #expect(!(try push(&depacketizer, filler)))
        #expect((try push(&depacketizer, packet(3, timestamp: 100, marker: true, payload: middle))))
        #expect(depacketizer.makeFrame().data == [0x31, 0x01, 0x00, 0xAA, 0xBB] && !depacketizer.frame.isKeyframe)
        // A continuation with another timestamp drops the frame in progress.
        #expect(!(try push(&depacketizer, packet(4, timestamp: 200, marker: false, payload: start))))
        #expect(!(try push(&depacketizer, packet(5, timestamp: 300, marker: true, payload: middle))))
        #expect(depacketizer.droppedFrames == 1)
        // An empty descriptor extension is malformed: counted, and the frame is dropped.
        #expect(!(try push(&depacketizer, packet(6, timestamp: 400, marker: false, payload: start))))
        #expect(!(try push(&depacketizer, packet(7, timestamp: 400, marker: true, payload: [0x80]))))
        #expect(depacketizer.malformedPackets == 1 && depacketizer.droppedFrames == 2)
    }

    @Test func framesOverTheLimitAreDropped() throws {
        var depacketizer = VP8Depacketizer(maximumFrameSize: 8)
        #expect(
            !(try push(
                &depacketizer,
                packet(1, timestamp: 0, marker: false, payload: [0x10, 0x31, 0x01, 0x00, 1, 2, 3])
            ))
        )
        #expect(!(try push(&depacketizer, packet(2, timestamp: 0, marker: true, payload: [0x00, 4, 5, 6]))))
        #expect(depacketizer.droppedFrames == 1)
    }
}
