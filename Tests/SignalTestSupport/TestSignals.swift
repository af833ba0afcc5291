import Foundation
import SwiftRTCCodecs

/// Signals and measurements the codec and media tests share (ToneGenerator lives in SwiftRTCMedia,
/// which this module cannot import).
public enum TestSignals {
    /// `count` samples per channel of a sine at `frequency` hertz and `rate`, starting at
    /// sample `start`; per channel frequencies when stereo.
    public static func tone(
        _ frequencies: [Double],
        rate: Int = 48_000,
        count: Int,
        start: Int = 0,
        amplitude: Double = 0.3
    ) -> [Int16] {
        let channels = frequencies.count
        var out = [Int16](repeating: 0, count: count * channels)
        for i in 0..<count {
            for (c, f) in frequencies.enumerated() {
                out[i * channels + c] = Int16(amplitude * 32767 * sin(2 * .pi * f * Double(start + i) / Double(rate)))
            }
        }
        return out
    }

    /// One channel of interleaved samples.
    public static func channel(_ samples: [Int16], _ channel: Int, of channels: Int) -> [Double] {
        stride(from: channel, to: samples.count, by: channels).map { Double(samples[$0]) }
    }

    /// Power of `frequency` in `x` (Goertzel), normalised by length.
    public static func goertzel(_ x: [Double], frequency: Double, rate: Double = 48_000) -> Double {
        let w = 2 * Double.pi * frequency / rate
        let coefficient = 2 * cos(w)
        var s1 = 0.0, s2 = 0.0
        for sample in x {
            let s0 = sample + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
        return power / Double(x.count * x.count)
    }

    /// Frequency from upward zero crossings (linearly interpolated), in hertz.
    public static func zeroCrossingFrequency(_ x: [Double], rate: Double = 48_000) -> Double {
        var crossings: [Double] = []
        for i in 1..<x.count where x[i - 1] < 0 && x[i] >= 0 {
            crossings.append(Double(i - 1) + (-x[i - 1]) / (x[i] - x[i - 1]))
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) * rate / (last - first)
    }

    public static func rms(_ x: [Double]) -> Double {
        x.isEmpty ? 0 : (x.reduce(0) { $0 + $1 * $1 } / Double(x.count)).squareRoot()
    }

    /// A moving test picture: smooth gradients, a textured band and a bright box that move
    /// with `index`, plus chroma gradients.
    public static func pattern(width: Int, height: Int, index: Int, timestamp: UInt64? = nil) -> VideoFrame {
        var frame = VideoFrame(width: width, height: height, timestamp: timestamp ?? UInt64(index) * 3000)
        let shift = index * 4
        let boxX = (index * 8) % max(1, width - width / 8), boxY = (index * 4) % max(1, height - height / 8)
        for row in 0..<height {
            for col in 0..<width {
                var value = 40 + (col + shift) % 256 * 150 / 256 + row * 40 / height
                if row > height / 3 && row < height / 2 {
                    value = 128 + Int(60 * sin(Double(col + shift) / 6) * cos(Double(row) / 5))
                }
                if col >= boxX && col < boxX + width / 8 && row >= boxY && row < boxY + height / 8 { value = 235 }
                frame.y[row * frame.yStride + col] = UInt8(clamping: value)
            }
        }
        for row in 0..<frame.chromaHeight {
            for col in 0..<frame.chromaWidth {
                frame.u[row * frame.uvStride + col] = UInt8(clamping: 90 + (col + index) % 80)
                frame.v[row * frame.uvStride + col] = UInt8(clamping: 100 + row % 60)
            }
        }
        return frame
    }

    /// Luma PSNR in dB between two frames of the same size.
    public static func psnr(_ a: VideoFrame, _ b: VideoFrame) -> Double {
        var sum = 0.0
        for row in 0..<a.height {
            for col in 0..<a.width {
                let d = Double(a.y[row * a.yStride + col]) - Double(b.y[row * b.yStride + col])
                sum += d * d
            }
        }
        let mse = sum / Double(a.width * a.height)
        return mse == 0 ? 100 : 10 * log10(255 * 255 / mse)
    }
}
