import Benchmark
import SwiftRTCRTP

// The data plane's per-packet work: RTP parse and write, VP8 packetize and depacketize, RTCP
// parse. Each iteration does the work 1000 times (scalingFactor .kilo); the tool divides by
// the factor, so wall clock and mallocCountTotal are per operation. Target: zero mallocs for
// RTP parse and write, tens of nanoseconds each.

/// A video packet as Chrome sends it: one-byte extensions (abs-send-time, transport-wide-cc,
/// mid), 1100 bytes of VP8 payload.
func makeVideoPacket() -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 1500)
    let payload = [UInt8](repeating: 0x5A, count: 1100)
    let length = out.withUnsafeMutableBytes { buffer in
        var writer = try! RTPPacketWriter(
            into: buffer,
            header: RTPHeader(marker: true, payloadType: 96, sequenceNumber: 1000, timestamp: 90_000, ssrc: 0x1234_5678)
        )
        try! writer.appendExtension(AbsSendTime(value: 0x12_3456), id: 2)
        try! writer.appendExtension(TransportSequenceNumber(value: 77), id: 3)
        try! writer.appendExtension(SDESMid(value: "1"), id: 4)
        try! payload.withUnsafeBytes { try writer.appendPayload($0) }
        return try! writer.finish()
    }
    return Array(out[..<length])
}

func makeKeyframe(size: Int) -> [UInt8] {
    var frame: [UInt8] = [0x50, 0x09, 0x00, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0, 0x01]  // 640x480
    while frame.count < size { frame.append(UInt8(truncatingIfNeeded: frame.count)) }
    return frame
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 2_000
    )

    Benchmark("RTP parse (3 extensions, read transport-wide-cc)") { benchmark in
        let packet = makeVideoPacket()
        packet.withUnsafeBytes { bytes in
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let parsed = try! RTPPacket(parsing: bytes)
                blackHole(try! parsed.extensionValue(TransportSequenceNumber.self, id: 3))
                blackHole(parsed.payloadLength)
            }
        }
    }

    Benchmark("RTP write (3 extensions, 1100-byte payload)") { benchmark in
        let payload = [UInt8](repeating: 0x5A, count: 1100)
        var out = [UInt8](repeating: 0, count: 1500)
        payload.withUnsafeBytes { payload in
            out.withUnsafeMutableBytes { buffer in
                var sequence: UInt16 = 0
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    var writer = try! RTPPacketWriter(
                        into: buffer,
                        header: RTPHeader(
                            marker: true,
                            payloadType: 96,
                            sequenceNumber: sequence,
                            timestamp: 90_000,
                            ssrc: 0x1234_5678
                        )
                    )
                    try! writer.appendExtension(AbsSendTime(value: 0x12_3456), id: 2)
                    try! writer.appendExtension(TransportSequenceNumber(value: sequence), id: 3)
                    try! writer.appendExtension(SDESMid(value: "1"), id: 4)
                    try! writer.appendPayload(payload)
                    blackHole(try! writer.finish())
                    sequence &+= 1
                }
            }
        }
    }

    Benchmark("VP8 packetize (5000-byte frame, MTU 1200, 5 packets)") { benchmark in
        let frame = makeKeyframe(size: 5000)
        var out = [UInt8](repeating: 0, count: 1500)
        var packetizer = VP8Packetizer(ssrc: 1, payloadType: 96)
        frame.withUnsafeBytes { frame in
            out.withUnsafeMutableBytes { buffer in
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    blackHole(try! packetizer.packetize(frame, timestamp: 3000, into: buffer) { blackHole($0.count) })
                }
            }
        }
    }

    Benchmark("VP8 depacketize (5 packets → one 5000-byte frame)") { benchmark in
        var packetizer = VP8Packetizer(ssrc: 1, payloadType: 96)
        var packets: [[UInt8]] = []
        var out = [UInt8](repeating: 0, count: 1500)
        makeKeyframe(size: 5000).withUnsafeBytes { frame in
            out.withUnsafeMutableBytes { buffer in
                _ = try! packetizer.packetize(frame, timestamp: 3000, into: buffer) { packets.append(Array($0)) }
            }
        }
        var depacketizer = VP8Depacketizer()
        let views = packets.map { bytes in
            let pointer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 8)
            pointer.copyBytes(from: bytes)
            return try! RTPPacket(parsing: UnsafeRawBufferPointer(pointer))
        }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            depacketizer.reportGap()  // every round starts a fresh sequence
            for view in views { blackHole(depacketizer.push(view)) }
        }
        benchmark.stopMeasurement()
        for view in views { UnsafeMutableRawBufferPointer(mutating: view.bytes).deallocate() }
    }

    // Chrome's transport-cc feedback and a SR + SDES compound, from the fixture capture shapes.
    let sr: [RTCPPacket] = [
        .senderReport(
            SenderReport(
                ssrc: 1,
                ntpTimestamp: 0xE000_0000_8000_0000,
                rtpTimestamp: 3,
                packetCount: 4,
                octetCount: 5,
                reports: [
                    ReceptionReport(
                        ssrc: 9,
                        fractionLost: 0,
                        cumulativeLost: 0,
                        extendedHighestSequence: 70_000,
                        jitter: 12,
                        lastSenderReport: 1,
                        delaySinceLastSenderReport: 2
                    )
                ]
            )
        ),
        .sourceDescription(
            SourceDescription(chunks: [.init(source: 1, items: [.init(type: 1, text: "abcdefghijklmnop")])])
        ),
    ]
    let twcc: [RTCPPacket] = [
        .transportFeedback(
            TransportLayerCC(
                senderSSRC: 1,
                mediaSSRC: 2,
                baseSequenceNumber: 100,
                referenceTime: 5,
                feedbackPacketCount: 1,
                statuses: (0..<40).map { $0 % 9 == 4 ? .notReceived : .smallDelta(UInt8($0 % 20)) }
            )
        )
    ]

    for (name, packets) in [
        ("RTCP parse (SR + SDES compound, to values)", sr), ("RTCP parse (transport-cc, 40 packets, to values)", twcc),
    ] {
        Benchmark(name) { benchmark in
            var out = [UInt8](repeating: 0, count: 1500)
            let length = out.withUnsafeMutableBytes { try! RTCPPacket.writeCompound(packets, into: $0) }
            Array(out[..<length]).withUnsafeBytes { bytes in
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { blackHole(try! RTCPPacket.parseCompound(bytes)) }
            }
        }
    }

    Benchmark("RTCP walk (SR + SDES compound, headers only)") { benchmark in
        var out = [UInt8](repeating: 0, count: 1500)
        let length = out.withUnsafeMutableBytes { try! RTCPPacket.writeCompound(sr, into: $0) }
        Array(out[..<length]).withUnsafeBytes { bytes in
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                var iterator = RTCPCompoundIterator(bytes)
                while let view = try! iterator.next() { blackHole(view.packetType) }
            }
        }
    }
}
