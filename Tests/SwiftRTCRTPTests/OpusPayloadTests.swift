import RTPFixtureSupport
import SwiftRTCCore
import Testing

@testable import SwiftRTCRTP

@Suite struct OpusPayloadTests {
    /// RFC 6716 §3.1: configuration → frame duration, code → frame count.
    @Test(arguments: [
        ("78", 15, false, 1, 960),  // hybrid FB 20 ms (Chrome's usual TOC)
        ("fc", 31, true, 1, 960),  // CELT FB 20 ms, stereo
        ("08", 1, false, 1, 960),  // SILK NB 20 ms
        ("19", 3, false, 2, 5760),  // SILK NB 60 ms, two frames
        ("e3 03", 28, false, 3, 360),  // CELT FB 2.5 ms, code 3 with 3 frames
        ("0b 06", 1, false, 6, 5760),  // code 3, six 20 ms frames
    ])
    func tocDurations(hex: String, configuration: UInt8, stereo: Bool, frames: Int, samples: Int) throws {
        let toc = try [UInt8](hex: hex).withUnsafeBytes { try OpusTOC(parsing: $0) }
        #expect(
            toc.configuration == configuration && toc.isStereo == stereo && toc.frameCount == frames
                && toc.samples == samples
        )
    }

    @Test(arguments: ["", "03", "0300"])
    func malformedTOCThrows(hex: String) {
        #expect(throws: RTPError.self) { _ = try [UInt8](hex: hex).withUnsafeBytes { try OpusTOC(parsing: $0) } }
    }

    @Test func packetizeAndDepacketize() throws {
        var packetizer = OpusPacketizer(ssrc: 77, payloadType: 111, sequenceNumber: 65535)
        let opus: [UInt8] = [0x78, 1, 2, 3, 4]
        var out = [UInt8](repeating: 0, count: 200)
        for n in 0..<2 {
            let length = try opus.withUnsafeBytes { o in
                try out.withUnsafeMutableBytes {
                    try packetizer.packetize(o, timestamp: UInt32(n * 960), marker: n == 0, into: $0)
                }
            }
            try Array(out[..<length]).withRTP { (p: RTPPacket) throws in
                #expect(p.sequenceNumber == 65535 &+ UInt16(n) && p.marker == (n == 0) && p.payloadType == 111)
                #expect(
                    OpusDepacketizer.frame(from: p)
                        == EncodedFrame(codec: .opus, data: opus, timestamp: UInt32(n * 960), isKeyframe: true)
                )
            }
        }
        try Fixtures.aiortc("rtp_only_padding.bin").withRTP { #expect(OpusDepacketizer.frame(from: $0) == nil) }
    }
}
