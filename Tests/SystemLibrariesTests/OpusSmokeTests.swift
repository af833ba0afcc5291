import COpus
import Foundation
import Testing

/// libopus really loads: a 20 ms stereo frame is encoded at a set bitrate and decoded back.
@Test func opusEncodesAndDecodesAFrame() throws {
    let version = String(cString: opus_get_version_string())
    #expect(version.hasPrefix("libopus 1."))

    var error: Int32 = 0
    let encoder = try #require(opus_encoder_create(48000, 2, OPUS_APPLICATION_VOIP, &error))
    defer { opus_encoder_destroy(encoder) }
    #expect(error == OPUS_OK)
    #expect(COpus_encoder_set(encoder, OPUS_SET_BITRATE_REQUEST, 32000) == OPUS_OK)
    var bitrate: Int32 = 0
    #expect(COpus_encoder_get(encoder, OPUS_GET_BITRATE_REQUEST, &bitrate) == OPUS_OK)
    #expect(bitrate == 32000)

    // 20 ms of a 440 Hz tone, interleaved stereo.
    let samplesPerChannel = 960
    var pcm = [Int16](repeating: 0, count: samplesPerChannel * 2)
    for i in 0..<samplesPerChannel {
        let value = Int16(8000 * sin(2 * Double.pi * 440 * Double(i) / 48000))
        pcm[2 * i] = value
        pcm[2 * i + 1] = value
    }
    var packet = [UInt8](repeating: 0, count: 1500)
    let encoded = opus_encode(encoder, pcm, Int32(samplesPerChannel), &packet, Int32(packet.count))
    #expect(encoded > 10)
    #expect(opus_packet_get_nb_samples(packet, encoded, 48000) == Int32(samplesPerChannel))

    let decoder = try #require(opus_decoder_create(48000, 2, &error))
    defer { opus_decoder_destroy(decoder) }
    var decoded = [Int16](repeating: 0, count: samplesPerChannel * 2)
    #expect(opus_decode(decoder, packet, encoded, &decoded, Int32(samplesPerChannel), 0) == Int32(samplesPerChannel))
}
