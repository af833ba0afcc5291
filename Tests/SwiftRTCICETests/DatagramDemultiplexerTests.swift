import Synchronization
import Testing

@testable import SwiftRTCICE

/// RFC 7983 section 7 ranges, at their edges, and RFC 5761 section 4 for RTP against RTCP.
@Test(
    arguments: [
        ([0x00, 0x01], DatagramKind.stun), ([0x03, 0x00], .stun), ([0x04, 0x00], .unknown),
        ([0x0F], .unknown), ([0x10], .zrtp), ([0x13], .zrtp),
        ([0x14, 0xFE], .dtls), ([0x16, 0xFE, 0xFD], .dtls), ([0x3F], .dtls),
        ([0x40, 0x00], .turnChannel), ([0x4F, 0xFF], .turnChannel), ([0x50], .unknown), ([0x7F], .unknown),
        ([0x80, 0x00], .rtp), ([0x80, 0x6F], .rtp), ([0x80, 0xE0], .rtp),  // PT 0, 111, 96 with marker
        ([0x80, 0x3F], .rtp), ([0x80, 0x60], .rtp),  // PT 63 and 96 just outside 64..95
        ([0x80, 0xC8], .rtcp), ([0x81, 0xC9], .rtcp), ([0x8F, 0xCE], .rtcp),  // SR 200, RR 201, PSFB 206
        ([0x80, 0xCF], .rtcp), ([0x80, 0x40], .rtcp), ([0x80, 0x5F], .rtcp),  // XR 207, and 64 / 95 (marker clear)
        ([0xBF, 0xC8], .rtcp), ([0xC0, 0x00], .unknown), ([0xFF, 0xFF], .unknown),
        ([0x80], .unknown), ([], .unknown),
    ] as [([UInt8], DatagramKind)]
)
func classifiesByFirstByte(bytes: [UInt8], kind: DatagramKind) {
    #expect(bytes.withUnsafeBytes { DatagramKind(classifying: $0) } == kind)
}

@Test func routesToTheRegisteredHandlersAndCountsTheRest() {
    let demultiplexer = DatagramDemultiplexer()
    let seen = Mutex<[String]>([])
    demultiplexer.setHandler({ bytes in seen.withLock { $0.append("dtls \(bytes.count)") } }, for: .dtls)
    demultiplexer.setHandler({ bytes in seen.withLock { $0.append("rtp \(bytes[1] & 0x7F)") } }, for: .rtp)
    demultiplexer.setHandler({ bytes in seen.withLock { $0.append("rtcp \(bytes[1])") } }, for: .rtcp)

    let datagrams: [[UInt8]] = [
        [22, 0xFE, 0xFD, 0], [0x80, 0xE0, 1], [0x80, 0xC8, 2], [0x00, 0x01], [0x40, 0], [], [0x80, 111],
    ]
    for datagram in datagrams { datagram.withUnsafeBytes { demultiplexer.deliver($0) } }
    #expect(seen.withLock { $0 } == ["dtls 4", "rtp 96", "rtcp 200", "rtp 111"])
    #expect(demultiplexer.dropped == 3)  // STUN without a handler, TURN channel data, empty

    demultiplexer.setHandler(nil, for: .rtp)
    [UInt8]([0x80, 0x60]).withUnsafeBytes { demultiplexer.deliver($0) }
    #expect(demultiplexer.dropped == 4)
}
