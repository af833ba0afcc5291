import Foundation
import SwiftRTCCodecs

/// Level meters on PCM: RMS (the bot report's `rms`, 0 to 1 of full scale) and the RFC 6464
/// audio level (the `ssrc-audio-level` header extension: 0 to 127 in -dBov, 0 loudest,
/// 127 for digital silence), measured like WebRTC's `RmsLevel`: mean square over all samples
/// seen since the level was last taken, a full-scale sine reading 3.
public struct AudioLevelMeter: Sendable {
    private var sumOfSquares: Double = 0
    private var sampleCount: Int = 0
    private var totalSumOfSquares: Double = 0
    private var totalSampleCount: Int = 0

    /// A meter that has seen no audio yet.
    public init() {}

    /// Adds a frame's samples to both the per-packet level and the running RMS.
    public mutating func analyze(_ frame: AudioFrame) {
        let sum = Self.sumOfSquares(frame.samples)
        sumOfSquares += sum
        sampleCount += frame.samples.count
        totalSumOfSquares += sum
        totalSampleCount += frame.samples.count
    }

    /// The RFC 6464 level of the audio analysed since the last call (127 if none), and resets
    /// that window (call once per outgoing packet).
    public mutating func takeAudioLevel() -> UInt8 {
        defer {
            sumOfSquares = 0
            sampleCount = 0
        }
        return Self.audioLevel(meanSquare: sampleCount == 0 ? 0 : sumOfSquares / Double(sampleCount))
    }

    /// RMS of everything analysed so far, 0 to 1 of full scale.
    public var rms: Double {
        totalSampleCount == 0 ? 0 : (totalSumOfSquares / Double(totalSampleCount)).squareRoot() / 32768
    }

    /// RMS of one frame, 0 to 1 of full scale.
    public static func rms(of frame: AudioFrame) -> Double {
        frame.samples.isEmpty ? 0 : (sumOfSquares(frame.samples) / Double(frame.samples.count)).squareRoot() / 32768
    }

    /// RFC 6464 level of one frame.
    public static func audioLevel(of frame: AudioFrame) -> UInt8 {
        audioLevel(meanSquare: frame.samples.isEmpty ? 0 : sumOfSquares(frame.samples) / Double(frame.samples.count))
    }

    static func audioLevel(meanSquare: Double) -> UInt8 {
        let normalized = meanSquare / (32768.0 * 32768.0)
        guard normalized > 1e-13 else { return 127 }
        let dBov = 10 * log10(normalized)
        return UInt8(min(127, max(0, (-dBov).rounded())))
    }

    static func sumOfSquares(_ samples: [Int16]) -> Double {
        var sum: Int64 = 0
        for sample in samples { sum &+= Int64(sample) * Int64(sample) }
        return Double(sum)
    }
}
