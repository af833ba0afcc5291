import SwiftRTCCodecs
import Testing

@testable import SwiftRTCMedia

private func decisions(_ samples: [Int16]) -> [Bool] {
    var vad = VoiceActivityDetector()
    return frames(of: samples).map { vad.isSpeech($0) }
}

@Test func silenceIsNotSpeech() {
    #expect(!decisions([Int16](repeating: 0, count: 48_000 * 2)).contains(true))
}

@Test(arguments: [0.01, 0.1, 0.5])
func whiteNoiseIsNotSpeech(amplitude: Double) {
    #expect(!decisions(noise(milliseconds: 3000, amplitude: amplitude)).contains(true))
}

@Test func speechLikeSignalIsSpeechAndPausesAreNot() {
    // 1 s quiet noise, 1.5 s speech, 1 s quiet noise, 1 s speech, 1 s quiet noise.
    let background = noise(milliseconds: 5500, amplitude: 0.003)
    var signal = background
    for (start, length) in [(1000, 1500), (3500, 1000)] {
        let speech = speechLike(milliseconds: length)
        for i in speech.indices { signal[start * 48 + i] = signal[start * 48 + i] &+ speech[i] }
    }
    let result = decisions(signal)  // one per 20 ms
    #expect(!result[0..<50].contains(true))
    #expect(result[50..<125].filter { $0 }.count >= 72)
    #expect(!result[140..<175].contains(true))  // after the 200 ms hangover
    #expect(result[175..<225].filter { $0 }.count >= 48)
    #expect(!result[240..<275].contains(true))
}

@Test func steadyLoudHumIsLearntAsBackground() {
    // A constant 200 Hz hum lies in the voice band; the noise floor rises to it within seconds.
    var tone = ToneGenerator(frequency: 200, amplitude: 0.2)
    var vad = VoiceActivityDetector()
    let result = (0..<500).map { _ in vad.isSpeech(tone.nextFrame()) }
    #expect(!result[400...].contains(true))
}

@Test func realSpeechFromEspeakIsDetected() async throws {
    let directory = try temporaryDirectory()
    let speech = try await espeakSpeech("Hello, this is a test of voice activity detection in SwiftRTC.", in: directory)
    let silence = [Int16](repeating: 0, count: 48_000)
    let background = noise(milliseconds: 1000 + speech.count / 48 + 1000, amplitude: 0.002)
    var signal = silence + speech + silence
    for i in signal.indices { signal[i] = signal[i] &+ background[i] }
    let result = decisions(signal)
    let speechFrames = 50..<(50 + speech.count / 960)
    #expect(!result[0..<50].contains(true))
    let detected: Double = Double(result[speechFrames].filter { $0 }.count) / Double(speechFrames.count)
    #expect(detected > 0.75)
    #expect(!result[(speechFrames.upperBound + 15)...].contains(true))
}

@Test func realSpeechInSteadyNoiseIsDetected() async throws {
    // espeak speech (-21 dBFS RMS) over white noise (-31 dBFS RMS): 10 dB SNR over the full
    // band, after 2 s of noise alone.
    let directory = try temporaryDirectory()
    let speech = try await espeakSpeech("Recording starts now. Please speak clearly after the tone.", in: directory)
    let lead = [Int16](repeating: 0, count: 96_000)
    let background = noise(milliseconds: 2000 + speech.count / 48 + 1000, amplitude: 0.05, seed: 3)
    var signal = lead + speech + [Int16](repeating: 0, count: 48_000)
    for i in signal.indices { signal[i] = signal[i] &+ background[i] }
    let result = decisions(signal)
    let speechFrames = 100..<(100 + speech.count / 960)
    #expect(!result[0..<100].contains(true))
    let detected: Double = Double(result[speechFrames].filter { $0 }.count) / Double(speechFrames.count)
    #expect(detected > 0.6)
    #expect(!result[(speechFrames.upperBound + 15)...].contains(true))
}

@Test func noiseBurstAfterQuietIsNotSpeech() {
    // 1 s near silence, then loud white noise starting suddenly.
    let signal = noise(milliseconds: 1000, amplitude: 0.001) + noise(milliseconds: 2000, amplitude: 0.3, seed: 11)
    #expect(!decisions(signal).contains(true))
}
