internal import COpus
import SwiftRTCCore

/// Decodes Opus ``EncodedFrame``s into 48 kHz ``AudioFrame``s (libopus), conceals lost
/// packets, and recovers a lost packet from the in-band FEC carried by the next one.
///
/// Output timestamps are the packets' RTP timestamps extended to 64 bits; concealed audio
/// continues from the last output. One instance per stream, used from one thread at a time.
public final class OpusDecoder {
    /// Output channels (1 or 2); packets of either channel count decode into these.
    public let channels: Int
    /// Packets decoded.
    public private(set) var framesDecoded = 0
    /// Lost packets filled by concealment (``decode(_:)`` with nil).
    public private(set) var framesConcealed = 0
    /// Lost packets filled from the next packet's FEC data (``recoverLost(from:)``).
    public private(set) var framesRecovered = 0

    private let decoder: OpaquePointer
    /// PCM scratch for the longest Opus packet, 120 ms.
    private var pcm: [Int16]
    /// Samples per channel of the last packet, what concealment produces (20 ms until known).
    private var lastFrameSize = 960
    /// The next output timestamp (48 kHz samples); nil before the first packet.
    private var nextTimestamp: UInt64?
    private var timestamps = RTPTimestampExtender()

    private static let maximumFrameSize = 5760

    /// A decoder producing `channels` channels.
    public init(channels: Int) throws(OpusError) {
        guard channels == 1 || channels == 2 else { throw .invalidChannels(channels) }
        var status: Int32 = OPUS_OK
        guard let decoder = opus_decoder_create(Int32(AudioFrame.sampleRate), Int32(channels), &status),
            status == OPUS_OK
        else { throw .library(operation: "opus_decoder_create", code: status) }
        self.decoder = decoder
        self.channels = channels
        self.pcm = [Int16](repeating: 0, count: Self.maximumFrameSize * channels)
    }

    deinit { opus_decoder_destroy(decoder) }

    /// Decodes `frame`, or with nil (a lost packet) conceals one frame of the last packet's
    /// duration, which stays audible and fades out over consecutive losses.
    public func decode(_ frame: EncodedFrame?) throws(OpusError) -> AudioFrame {
        guard let frame else {
            let output = try run(
                data: nil,
                frameSize: lastFrameSize,
                fec: false,
                operation: "opus_decode (concealment)"
            )
            framesConcealed += 1
            return output
        }
        guard frame.codec == .opus else { throw .wrongCodec(frame.codec) }
        align(to: frame.timestamp)
        let output = try run(data: frame.data, frameSize: Self.maximumFrameSize, fec: false, operation: "opus_decode")
        lastFrameSize = output.samplesPerChannel
        framesDecoded += 1
        return output
    }

    /// Recovers the packet lost just before `next` from the FEC data `next` carries (libopus
    /// conceals instead when it carries none). Then decode `next` itself with ``decode(_:)``.
    public func recoverLost(from next: EncodedFrame) throws(OpusError) -> AudioFrame {
        guard next.codec == .opus else { throw .wrongCodec(next.codec) }
        let samples = next.data.withUnsafeBufferPointer { data in
            guard let bytes = data.baseAddress, data.count > 0 else { return Int32(0) }
            return opus_packet_get_samples_per_frame(bytes, Int32(AudioFrame.sampleRate))
        }
        guard samples > 0 else {
            throw .library(operation: "opus_packet_get_samples_per_frame", code: OPUS_INVALID_PACKET)
        }
        align(to: next.timestamp &- UInt32(samples))
        let output = try run(data: next.data, frameSize: Int(samples), fec: true, operation: "opus_decode (FEC)")
        framesRecovered += 1
        return output
    }

    /// Whether an Opus packet carries in-band FEC (SILK LBRR) data for the packet before it
    /// (RFC 6716 §3.1 TOC byte, §4.2.3 header bits): SILK or hybrid mode, one frame (TOC code 0
    /// or 1), and the LBRR flag of the first channel set, which follows the VAD flag of each
    /// 20 ms SILK frame in the first byte of the range-coded data.
    public static func carriesFEC(_ packet: [UInt8]) -> Bool {
        guard packet.count >= 2 else { return false }
        let toc = packet[0], config = Int(toc >> 3)
        guard config < 16, toc & 0x03 <= 1 else { return false }  // CELT-only has no LBRR
        let milliseconds: Int
        if config < 12 {
            milliseconds = [10, 20, 40, 60][config & 3]
        } else {
            milliseconds = config & 1 == 0 ? 10 : 20
        }
        let silkFrames = max(1, milliseconds / 20)
        return (packet[1] >> (7 - silkFrames)) & 1 == 1
    }

    /// Sets the next output timestamp from an RTP timestamp, extended to 64 bits.
    private func align(to rtpTimestamp: UInt32) {
        nextTimestamp = timestamps.extend(rtpTimestamp)
    }

    private func run(data: [UInt8]?, frameSize: Int, fec: Bool, operation: String) throws(OpusError) -> AudioFrame {
        let decoder = self.decoder
        if let data, data.isEmpty { throw .library(operation: operation, code: OPUS_INVALID_PACKET) }
        let count = pcm.withUnsafeMutableBufferPointer { out in
            guard let out = out.baseAddress else { return OPUS_BAD_ARG }
            if let data {
                return data.withUnsafeBufferPointer { input in
                    opus_decode(decoder, input.baseAddress, Int32(input.count), out, Int32(frameSize), fec ? 1 : 0)
                }
            } else {
                return opus_decode(decoder, nil, 0, out, Int32(frameSize), 0)
            }
        }
        guard count > 0 else { throw .library(operation: operation, code: count) }
        let timestamp = nextTimestamp ?? 0
        nextTimestamp = timestamp + UInt64(count)
        return AudioFrame(samples: Array(pcm[0..<Int(count) * channels]), channels: channels, timestamp: timestamp)
    }
}
