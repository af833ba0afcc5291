import SwiftRTCCodecs

/// Digital silence: all-zero 48 kHz frames, endlessly.
public struct SilenceSource: MediaSource, Sendable {
    /// 1 (mono) or 2 (stereo).
    public var channels: Int
    /// Frame length in milliseconds (10, 20, 40 or 60 for Opus).
    public var frameMilliseconds: Int
    private var sampleIndex: UInt64 = 0

    /// Silence in frames of `frameMilliseconds`.
    public init(channels: Int = 1, frameMilliseconds: Int = 20) {
        self.channels = channels
        self.frameMilliseconds = frameMilliseconds
    }

    /// The next frame (the source never ends).
    public mutating func readFrame() -> AudioFrame? {
        let count = AudioFrame.sampleRate * frameMilliseconds / 1000
        defer { sampleIndex += UInt64(count) }
        return AudioFrame(
            samples: [Int16](repeating: 0, count: count * channels),
            channels: channels,
            timestamp: sampleIndex
        )
    }
}
