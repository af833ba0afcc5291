import SwiftRTCCodecs
import SwiftRTCRTP
import Testing

/// ``OpusDecoder/carriesFEC(_:)`` against libopus' own output: packets of an encoder with
/// in-band FEC and expected loss carry LBRR data after the first; without FEC none do.
@Suite struct OpusFECDetectionTests {
    @Test func detectsLibopusInbandFEC() throws {
        let withFEC = try OpusDecoderTests.encodeSpeech(
            frames: 30,
            configuration: .init(bitrate: 24_000, inbandFEC: true, expectedPacketLoss: 20)
        )
        let without = try OpusDecoderTests.encodeSpeech(
            frames: 30,
            configuration: .init(bitrate: 24_000, inbandFEC: false)
        )
        let carrying = withFEC.dropFirst().filter { OpusDecoder.carriesFEC($0.data) }.count
        // LBRR data is only coded for a previous frame the encoder found active (VAD).
        #expect(carrying >= 20, "\(carrying) of 29 packets carry FEC")
        #expect(!OpusDecoder.carriesFEC(withFEC[0].data))  // nothing before the first packet
        #expect(without.allSatisfy { !OpusDecoder.carriesFEC($0.data) })
    }

    /// TOC byte cases (RFC 6716 §3.1): CELT-only, code 2/3 and short packets never count.
    @Test(arguments: [
        ([UInt8]([0x08, 0x40]), true),  // SILK NB 20 ms, code 0, VAD 0 LBRR 1
        ([0x08, 0x80], false),  // VAD 1, LBRR 0
        ([0x10, 0x20], true),  // SILK NB 40 ms: two VAD bits, then LBRR
        ([0x68, 0x40], true),  // hybrid SWB 20 ms
        ([0x80, 0xFF], false),  // CELT-only
        ([0x0A, 0x40], false),  // code 2
        ([0x08], false),  // TOC only
    ])
    func readsTheLBRRFlag(packet: [UInt8], fec: Bool) {
        #expect(OpusDecoder.carriesFEC(packet) == fec)
    }
}
