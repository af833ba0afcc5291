import Foundation
import SwiftRTCCodecs

@testable import SwiftRTCMedia

/// Synthetic voiced speech: a 120 Hz glottal-like harmonic series (harmonics falling 6 dB per
/// octave up to 4 kHz, with formant peaks near 700 and 1200 Hz) whose loudness rises and falls
/// at a syllable rate of 4 Hz.
func speechLike(milliseconds: Int, amplitude: Double = 0.3, startSample: Int = 0) -> [Int16] {
    let count = milliseconds * 48
    var samples = [Int16](repeating: 0, count: count)
    for i in 0..<count {
        let t = Double(startSample + i) / 48_000
        var value = 0.0
        for harmonic in 1...33 {
            let f = 120.0 * Double(harmonic)
            let formant = 1 + 2 * exp(-pow((f - 700) / 150, 2)) + 1.5 * exp(-pow((f - 1200) / 200, 2))
            value += formant / Double(harmonic) * sin(2 * .pi * f * t)
        }
        let envelope = 0.55 + 0.45 * sin(2 * .pi * 4 * t)
        samples[i] = Int16(clamping: Int(value * envelope * amplitude * 32767 / 3))
    }
    return samples
}

/// Cuts mono samples into 20 ms frames.
func frames(of samples: [Int16]) -> [AudioFrame] {
    stride(from: 0, to: samples.count - 959, by: 960).map {
        AudioFrame(samples: Array(samples[$0..<$0 + 960]), channels: 1, timestamp: UInt64($0))
    }
}

func noise(milliseconds: Int, amplitude: Double, seed: UInt64 = 7) -> [Int16] {
    var source = WhiteNoiseSource(amplitude: amplitude, frameMilliseconds: milliseconds, seed: seed)
    return source.readFrame()!.samples
}

/// Speech from espeak-ng (Debian `espeak-ng`), as 48 kHz mono samples.
func espeakSpeech(_ text: String, in directory: String) async throws -> [Int16] {
    let path = directory + "/speech.wav"
    try await run("/usr/bin/espeak-ng", ["-w", path, text])
    var reader = try WAVReader(path: path)
    var samples: [Int16] = []
    while let frame = reader.readFrame() { samples += frame.samples }
    return samples
}
