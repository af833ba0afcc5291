import Foundation
import SwiftRTCCodecs

/// Generates a continuous sine tone as 48 kHz ``AudioFrame``s, phase-continuous across frames.
public struct ToneGenerator: Sendable {
    /// Tone frequency in hertz.
    public var frequency: Double
    /// Peak amplitude, from 0 to 1 of full scale.
    public var amplitude: Double
    /// 1 (mono) or 2 (stereo, the same tone in both channels).
    public var channels: Int
    private var sampleIndex: UInt64 = 0

    /// A tone of `frequency` Hz at `amplitude` of full scale.
    public init(frequency: Double = 440, amplitude: Double = 0.25, channels: Int = 1) {
        self.frequency = frequency
        self.amplitude = amplitude
        self.channels = channels
    }

    /// The next `milliseconds` of tone (10, 20, 40 or 60 ms are what Opus takes).
    public mutating func nextFrame(milliseconds: Int = 20) -> AudioFrame {
        let count = AudioFrame.sampleRate * milliseconds / 1000
        var samples = [Int16](repeating: 0, count: count * channels)
        let step = 2 * Double.pi * frequency / Double(AudioFrame.sampleRate)
        let scale = amplitude * Double(Int16.max)
        for i in 0..<count {
            let value = Int16(scale * sin(step * Double(sampleIndex + UInt64(i))))
            for c in 0..<channels { samples[i * channels + c] = value }
        }
        let frame = AudioFrame(samples: samples, channels: channels, timestamp: sampleIndex)
        sampleIndex += UInt64(count)
        return frame
    }
}

extension ToneGenerator: MediaSource {
    /// The next 20 ms of tone (see ``nextFrame(milliseconds:)`` for other lengths).
    public mutating func readFrame() -> AudioFrame? { nextFrame(milliseconds: 20) }
}
