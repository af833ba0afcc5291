import Foundation

/// Why an ``AudioResampler`` cannot be made.
public enum AudioResamplerError: Error, Hashable, Sendable {
    /// The input rate is outside 8 kHz...192 kHz, or its ratio to 48 kHz needs more than
    /// ``AudioResampler/maximumPhases`` filter phases.
    case unsupportedInputRate(Int)
    /// Channels must be 1 or 2.
    case invalidChannels(Int)
}

/// Converts PCM at another rate (8, 16, 44.1 kHz...) to SwiftRTC's 48 kHz, frame by frame.
///
/// A polyphase windowed-sinc resampler: the rate ratio is reduced to `L/M`
/// (8 kHz: 6/1, 16 kHz: 3/1, 44.1 kHz: 160/147), and each output sample is the dot product of
/// ``tapsPerPhase`` input samples with one of `L` phases of a Kaiser-windowed (beta 8, about
/// 80 dB stop band) low-pass sinc cut off at 90% of the lower Nyquist frequency. It keeps its
/// filter history between calls, so audio fed in any chunking comes out the same and without
/// seams. Latency: half the filter, 32 input samples.
public struct AudioResampler: Sendable {
    /// Input samples each output sample is computed from.
    public static let tapsPerPhase = 64
    /// The largest `L` (48 kHz over the rates' greatest common divisor) supported.
    public static let maximumPhases = 480

    /// The input sample rate in hertz.
    public let inputRate: Int
    /// 1 or 2; input and output have the same channels.
    public let channels: Int

    private let upFactor: Int   // L
    private let downFactor: Int // M
    /// Phase p's taps at `p * tapsPerPhase ..< (p + 1) * tapsPerPhase`, newest input first.
    private let phases: [Float]
    /// Per channel: the last `tapsPerPhase - 1` inputs, then the current call's input.
    private var work: [[Float]]
    /// The next output's position in the upsampled stream, relative to the current call's
    /// first input sample, in units of 1/L input samples.
    private var position = 0
    private var outputTimestamp: UInt64 = 0

    /// A resampler from `inputRate` hertz to 48 kHz for `channels` interleaved channels.
    public init(inputRate: Int, channels: Int) throws(AudioResamplerError) {
        guard channels == 1 || channels == 2 else { throw .invalidChannels(channels) }
        guard (8_000...192_000).contains(inputRate) else { throw .unsupportedInputRate(inputRate) }
        let divisor = Self.gcd(inputRate, AudioFrame.sampleRate)
        let up = AudioFrame.sampleRate / divisor
        let down = inputRate / divisor
        guard up <= Self.maximumPhases else { throw .unsupportedInputRate(inputRate) }
        self.inputRate = inputRate
        self.channels = channels
        self.upFactor = up
        self.downFactor = down
        self.phases = Self.makePhases(up: up, down: down)
        self.work = Array(repeating: [Float](repeating: 0, count: Self.tapsPerPhase - 1), count: channels)
    }

    /// Resamples interleaved Int16 `samples` at ``inputRate`` (whole channel groups) and
    /// returns what is ready at 48 kHz; its timestamp counts 48 kHz samples produced so far.
    public mutating func resample(_ samples: [Int16]) -> AudioFrame {
        let frames = samples.count / channels
        let history = Self.tapsPerPhase - 1
        for channel in 0..<channels {
            work[channel].removeSubrange(history...)
            work[channel].reserveCapacity(history + frames)
            for i in 0..<frames { work[channel].append(Float(samples[i * channels + channel]) * (1 / 32768)) }
        }
        // Outputs are due while their newest input index q = position / L is within this call.
        var count = 0
        if frames > 0, position < frames * upFactor {
            count = (frames * upFactor - position + downFactor - 1) / downFactor
        }
        var output = [Int16](repeating: 0, count: count * channels)
        let taps = Self.tapsPerPhase
        output.withUnsafeMutableBufferPointer { out in
            phases.withUnsafeBufferPointer { phases in
                for channel in 0..<channels {
                    work[channel].withUnsafeBufferPointer { input in
                        var t = position
                        for n in 0..<count {
                            let q = t / upFactor, p = t - q * upFactor
                            let newest = history + q
                            var sum: Float = 0
                            let base = p * taps
                            for k in 0..<taps { sum += phases[base + k] * input[newest - k] }
                            let scaled = (sum * 32768).rounded()
                            out[n * channels + channel] = scaled >= 32767 ? .max : scaled <= -32768 ? .min : Int16(scaled)
                            t += downFactor
                        }
                    }
                }
            }
        }
        position += count * downFactor - frames * upFactor
        for channel in 0..<channels {
            // Keep the newest `history` inputs for the next call.
            work[channel].removeFirst(work[channel].count - history)
        }
        let frame = AudioFrame(samples: output, channels: channels, timestamp: outputTimestamp)
        outputTimestamp += UInt64(count)
        return frame
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    /// The Kaiser-windowed sinc prototype at the upsampled rate, split into `up` phases,
    /// each normalised to unit DC gain.
    private static func makePhases(up: Int, down: Int) -> [Float] {
        let length = tapsPerPhase * up
        let cutoff = 0.9 / (2 * Double(max(up, down)))  // cycles per upsampled sample
        let beta = 8.0
        let center = Double(length - 1) / 2
        var prototype = [Double](repeating: 0, count: length)
        for j in 0..<length {
            let x = Double(j) - center
            let sinc = x == 0 ? 2 * cutoff : sin(2 * Double.pi * cutoff * x) / (Double.pi * x)
            let r = 2 * Double(j) / Double(length - 1) - 1
            prototype[j] = sinc * besselI0(beta * (1 - r * r).squareRoot()) / besselI0(beta)
        }
        var phases = [Float](repeating: 0, count: length)
        for p in 0..<up {
            var sum = 0.0
            for k in 0..<tapsPerPhase { sum += prototype[p + k * up] }
            for k in 0..<tapsPerPhase { phases[p * tapsPerPhase + k] = Float(prototype[p + k * up] / sum) }
        }
        return phases
    }

    /// The modified Bessel function of the first kind, order 0 (power series).
    private static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0
        let half = x / 2
        for k in 1..<50 {
            term *= (half / Double(k)) * (half / Double(k))
            sum += term
            if term < sum * 1e-12 { break }
        }
        return sum
    }
}
