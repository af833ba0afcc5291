internal import COpus
import SwiftRTCCore

/// Encodes 48 kHz ``AudioFrame``s of 10, 20, 40 or 60 ms into Opus packets (libopus), as
/// ``EncodedFrame``s whose RTP timestamp is the frame's sample timestamp (48 kHz, RFC 7587).
///
/// One instance per stream, used from one thread at a time.
public final class OpusEncoder {
    /// The settings in force.
    public private(set) var configuration: OpusEncoderConfiguration
    private let encoder: OpaquePointer
    /// Packet scratch, reused; 4000 bytes is libopus's recommended maximum for one packet.
    private var packet = [UInt8](repeating: 0, count: OpusEncoder.maximumPacketSize)

    /// The largest packet this encoder writes.
    public static let maximumPacketSize = 4000
    /// Samples per channel of the frame durations Opus takes at 48 kHz: 10, 20, 40, 60 ms.
    public static let frameSizes = [480, 960, 1920, 2880]

    /// An encoder with `configuration` (validated first).
    public init(configuration: OpusEncoderConfiguration = OpusEncoderConfiguration()) throws(OpusError) {
        try configuration.validate()
        var status: Int32 = OPUS_OK
        guard
            let encoder = opus_encoder_create(
                Int32(AudioFrame.sampleRate),
                Int32(configuration.channels),
                Self.applicationCode(configuration.application),
                &status
            ),
            status == OPUS_OK
        else { throw .library(operation: "opus_encoder_create", code: status) }
        self.encoder = encoder
        self.configuration = configuration
        try set(configuration)  // on error, deinit destroys the encoder
    }

    deinit { opus_encoder_destroy(encoder) }

    /// Changes the settings mid-stream; ``OpusEncoderConfiguration/channels`` must stay.
    public func apply(_ configuration: OpusEncoderConfiguration) throws(OpusError) {
        try configuration.validate()
        guard configuration.channels == self.configuration.channels else {
            throw .channelMismatch(expected: self.configuration.channels, got: configuration.channels)
        }
        try set(configuration)
    }

    /// Encodes one frame of ``configuration``'s channels and 480, 960, 1920 or 2880 samples
    /// per channel.
    public func encode(_ frame: AudioFrame) throws(OpusError) -> EncodedFrame {
        guard frame.channels == configuration.channels else {
            throw .channelMismatch(expected: configuration.channels, got: frame.channels)
        }
        let frameSize = frame.samplesPerChannel
        guard Self.frameSizes.contains(frameSize) else { throw .invalidFrameDuration(samplesPerChannel: frameSize) }
        let encoder = self.encoder
        let length = frame.samples.withUnsafeBufferPointer { pcm in
            packet.withUnsafeMutableBufferPointer { out in
                guard let input = pcm.baseAddress, let output = out.baseAddress else { return OPUS_BAD_ARG }
                return opus_encode(encoder, input, Int32(frameSize), output, Int32(out.count))
            }
        }
        guard length > 0 else { throw .library(operation: "opus_encode", code: length) }
        return EncodedFrame(
            codec: .opus,
            data: Array(packet[0..<Int(length)]),
            timestamp: UInt32(truncatingIfNeeded: frame.timestamp),
            isKeyframe: true
        )
    }

    /// The bitrate libopus is running at (bits per second).
    public var currentBitrate: Int {
        var value: Int32 = 0
        _ = COpus_encoder_get(encoder, OPUS_GET_BITRATE_REQUEST, &value)
        return Int(value)
    }

    private func set(_ configuration: OpusEncoderConfiguration) throws(OpusError) {
        let settings: [(String, Int32, Int32)] = [
            ("OPUS_SET_APPLICATION", OPUS_SET_APPLICATION_REQUEST, Self.applicationCode(configuration.application)),
            ("OPUS_SET_BITRATE", OPUS_SET_BITRATE_REQUEST, Int32(configuration.bitrate)),
            ("OPUS_SET_COMPLEXITY", OPUS_SET_COMPLEXITY_REQUEST, Int32(configuration.complexity)),
            ("OPUS_SET_VBR", OPUS_SET_VBR_REQUEST, configuration.variableBitrate ? 1 : 0),
            ("OPUS_SET_VBR_CONSTRAINT", OPUS_SET_VBR_CONSTRAINT_REQUEST, 1),
            ("OPUS_SET_INBAND_FEC", OPUS_SET_INBAND_FEC_REQUEST, configuration.inbandFEC ? 1 : 0),
            ("OPUS_SET_PACKET_LOSS_PERC", OPUS_SET_PACKET_LOSS_PERC_REQUEST, Int32(configuration.expectedPacketLoss)),
            ("OPUS_SET_DTX", OPUS_SET_DTX_REQUEST, configuration.discontinuousTransmission ? 1 : 0),
        ]
        for (name, request, value) in settings {
            let status = COpus_encoder_set(encoder, request, value)
            guard status == OPUS_OK else { throw .library(operation: name, code: status) }
        }
        self.configuration = configuration
    }

    private static func applicationCode(_ application: OpusEncoderConfiguration.Application) -> Int32 {
        switch application {
        case .voip: OPUS_APPLICATION_VOIP
        case .audio: OPUS_APPLICATION_AUDIO
        }
    }
}
