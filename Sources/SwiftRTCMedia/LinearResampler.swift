import SwiftRTCCodecs

/// Converts whole interleaved 16-bit PCM buffers from a file's rate to 48 kHz by linear
/// interpolation, so WAV and raw PCM files at 8, 16, 44.1 kHz (or any rate) play as
/// ``AudioFrame``s. Good enough for speech and test tones; the codec layer's resampler is the
/// one for live streams.
enum LinearResampler {
    static func to48k(_ samples: [Int16], channels: Int, from rate: Int) -> [Int16] {
        guard rate != AudioFrame.sampleRate, rate > 0, channels > 0 else { return samples }
        let inputFrames = samples.count / channels
        guard inputFrames > 0 else { return [] }
        let outputFrames = inputFrames * AudioFrame.sampleRate / rate
        var output = [Int16](repeating: 0, count: outputFrames * channels)
        let step = Double(rate) / Double(AudioFrame.sampleRate)
        for frame in 0..<outputFrames {
            let position = Double(frame) * step
            let index = min(Int(position), inputFrames - 1)
            let next = min(index + 1, inputFrames - 1)
            let fraction = position - Double(index)
            for channel in 0..<channels {
                let a = Double(samples[index * channels + channel]), b = Double(samples[next * channels + channel])
                output[frame * channels + channel] = Int16((a + (b - a) * fraction).rounded())
            }
        }
        return output
    }
}

/// Cuts interleaved 48 kHz PCM into ``AudioFrame``s of a fixed length; the last frame is
/// padded with silence so every frame has the length an encoder expects.
struct PCMFramer {
    let samples: [Int16]
    let channels: Int
    let frameMilliseconds: Int
    private var position = 0

    init(samples: [Int16], channels: Int, frameMilliseconds: Int) {
        self.samples = samples
        self.channels = channels
        self.frameMilliseconds = max(1, frameMilliseconds)
    }

    mutating func next() -> AudioFrame? {
        guard position < samples.count else { return nil }
        let length = AudioFrame.sampleRate * frameMilliseconds / 1000 * channels
        var chunk = Array(samples[position..<min(samples.count, position + length)])
        if chunk.count < length { chunk += [Int16](repeating: 0, count: length - chunk.count) }
        let timestamp = UInt64(position / channels)
        position += length
        return AudioFrame(samples: chunk, channels: channels, timestamp: timestamp)
    }
}

extension Array where Element == Int16 {
    /// Interleaved little-endian 16-bit samples from raw bytes (an even count).
    init(littleEndianPCM bytes: ArraySlice<UInt8>) {
        self = [Int16](unsafeUninitializedCapacity: bytes.count / 2) { buffer, count in
            var index = bytes.startIndex
            for i in 0..<(bytes.count / 2) {
                buffer[i] = Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)
                index += 2
            }
            count = bytes.count / 2
        }
    }

    /// The samples as little-endian bytes.
    var littleEndianBytes: [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(count * 2)
        for sample in self { bytes.appendLE16(UInt16(bitPattern: sample)) }
        return bytes
    }
}
