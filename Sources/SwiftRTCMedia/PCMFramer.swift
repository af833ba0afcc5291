import SwiftRTCCodecs

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
