import Foundation
import SignalTestSupport
import SwiftRTCCore
import SwiftRTCRTP
import Testing

@testable import SwiftRTCCodecs

@Suite struct OpusDecoderTests {
    /// Speech-like test audio: two tones with a 4 Hz amplitude envelope and a gliding pitch,
    /// so that a lost frame cannot be extrapolated from the previous one.
    static func speechLike(frame: Int) -> [Int16] {
        (0..<960).map { i in
            let t = Double(frame * 960 + i) / 48_000
            let envelope = 0.5 + 0.5 * sin(2 * .pi * 4 * t)
            let pitch = 180 + 60 * sin(2 * .pi * 1.5 * t)
            return Int16(9000 * envelope * (sin(2 * .pi * pitch * t * 3) + 0.5 * sin(2 * .pi * pitch * t * 7)))
        }
    }

    static func encodeSpeech(frames: Int, configuration: OpusEncoderConfiguration) throws -> [EncodedFrame] {
        let encoder = try OpusEncoder(configuration: configuration)
        return try (0..<frames).map { i in
            try encoder.encode(AudioFrame(samples: speechLike(frame: i), channels: 1, timestamp: UInt64(i * 960)))
        }
    }

    static func error(_ a: [Int16], _ b: [Int16]) -> Double {
        TestSignals.rms(zip(a, b).map { Double($0) - Double($1) })
    }

    @Test func concealmentFillsALostFrameWithAudio() throws {
        let packets = try Self.encodeSpeech(frames: 30, configuration: .init())
        let decoder = try OpusDecoder(channels: 1)
        for packet in packets[0..<20] { _ = try decoder.decode(packet) }
        let concealed = try decoder.decode(nil)
        #expect(concealed.samplesPerChannel == 960)
        #expect(concealed.timestamp == 20 * 960)
        #expect(TestSignals.rms(concealed.samples.map(Double.init)) > 500)
        #expect(decoder.framesConcealed == 1)
        // The stream goes on after the gap.
        let next = try decoder.decode(packets[21])
        #expect(next.timestamp == 21 * 960)
        #expect(decoder.framesDecoded == 21)
    }

    @Test func concealmentFollowsTheLastFrameDuration() throws {
        let encoder = try OpusEncoder()
        let decoder = try OpusDecoder(channels: 2)
        let frame = AudioFrame(samples: TestSignals.tone([300], count: 480), channels: 1, timestamp: 0)
        let output = try decoder.decode(try encoder.encode(frame))
        #expect(output.channels == 2 && output.samplesPerChannel == 480)
        let concealed = try decoder.decode(nil)
        #expect(concealed.samplesPerChannel == 480 && concealed.channels == 2 && concealed.timestamp == 480)
    }

    @Test func forwardErrorCorrectionRecoversBetterThanConcealment() throws {
        let packets = try Self.encodeSpeech(
            frames: 40,
            configuration: .init(bitrate: 24_000, inbandFEC: true, expectedPacketLoss: 20)
        )
        let reference = try OpusDecoder(channels: 1)
        let clean = try packets.map { try reference.decode($0).samples }

        var plcErrors: [Double] = [], fecErrors: [Double] = []
        for lost in [15, 22, 29, 35] {
            let plc = try OpusDecoder(channels: 1), fec = try OpusDecoder(channels: 1)
            for packet in packets[0..<lost] {
                _ = try plc.decode(packet)
                _ = try fec.decode(packet)
            }
            let concealed = try plc.decode(nil)
            let recovered = try fec.recoverLost(from: packets[lost + 1])
            #expect(recovered.timestamp == UInt64(lost * 960) && recovered.samplesPerChannel == 960)
            #expect(fec.framesRecovered == 1)
            plcErrors.append(Self.error(concealed.samples, clean[lost]))
            fecErrors.append(Self.error(recovered.samples, clean[lost]))
            #expect(try fec.decode(packets[lost + 1]).timestamp == UInt64((lost + 1) * 960))
        }
        let plcMean = plcErrors.reduce(0, +) / 4, fecMean = fecErrors.reduce(0, +) / 4
        #expect(fecMean < plcMean * 0.7, "FEC error \(fecErrors), concealment error \(plcErrors)")
    }

    @Test func timestampsExtendAcrossWraparound() throws {
        let encoder = try OpusEncoder()
        let decoder = try OpusDecoder(channels: 1)
        let pcm = TestSignals.tone([440], count: 960)
        let start = UInt64(UInt32.max) - 959
        let first = try decoder.decode(try encoder.encode(AudioFrame(samples: pcm, channels: 1, timestamp: start)))
        let second = try decoder.decode(
            try encoder.encode(AudioFrame(samples: pcm, channels: 1, timestamp: start + 960))
        )
        #expect(first.timestamp == start)
        #expect(second.timestamp == start + 960)
    }

    @Test func garbagePacketsNeverCrash() throws {
        let decoder = try OpusDecoder(channels: 2)
        var generator = SystemRandomNumberGenerator()
        var decoded = 0, rejected = 0
        for length in [1, 2, 3, 5, 40, 200, 1500] {
            for _ in 0..<30 {
                let data = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                do {
                    let frame = try decoder.decode(
                        EncodedFrame(codec: .opus, data: data, timestamp: 0, isKeyframe: true)
                    )
                    #expect(
                        [120, 240, 480, 960, 1920, 2880].contains(frame.samplesPerChannel)
                            || frame.samplesPerChannel % 120 == 0
                    )
                    decoded += 1
                } catch { rejected += 1 }
                _ = try? decoder.recoverLost(
                    from: EncodedFrame(codec: .opus, data: data, timestamp: 0, isKeyframe: true)
                )
            }
        }
        #expect(decoded + rejected == 210 && rejected > 0 && decoded > 0)
    }

    @Test func badInputIsRejected() throws {
        #expect(throws: OpusError.invalidChannels(0)) { try OpusDecoder(channels: 0) }
        let decoder = try OpusDecoder(channels: 1)
        #expect(throws: OpusError.wrongCodec(.vp8)) {
            try decoder.decode(EncodedFrame(codec: .vp8, data: [1], timestamp: 0, isKeyframe: true))
        }
        #expect(throws: OpusError.library(operation: "opus_decode", code: -4)) {
            try decoder.decode(EncodedFrame(codec: .opus, data: [], timestamp: 0, isKeyframe: true))
        }
        // A TOC byte announcing code 3 (arbitrary frame count) with no count byte is invalid.
        #expect(throws: OpusError.library(operation: "opus_decode", code: -4)) {
            try decoder.decode(EncodedFrame(codec: .opus, data: [0x03], timestamp: 0, isKeyframe: true))
        }
        #expect(throws: OpusError.self) {
            try decoder.recoverLost(from: EncodedFrame(codec: .opus, data: [], timestamp: 0, isKeyframe: true))
        }
    }
}
