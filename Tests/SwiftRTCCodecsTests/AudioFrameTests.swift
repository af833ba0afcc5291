import Testing

@testable import SwiftRTCCodecs

@Test func audioFrameMeasuresItsDuration() {
    let frame = AudioFrame(samples: [Int16](repeating: 0, count: 1920), channels: 2, timestamp: 0)
    #expect(frame.samplesPerChannel == 960)
    #expect(frame.durationMilliseconds == 20)
}

@Test func floatConversionRoundTripsAndClips() {
    let frame = AudioFrame(samples: [0, 1, -1, 16384, -16384, .max, .min], channels: 1, timestamp: 9)
    let expected: [Float] = [0, 1.0 / 32768, -1.0 / 32768, 0.5, -0.5, 32767.0 / 32768, -1]
    #expect(frame.floatSamples == expected)
    #expect(AudioFrame(floatSamples: frame.floatSamples, channels: 1, timestamp: 9) == frame)
    let clipped = AudioFrame(floatSamples: [1.5, -2, 1, .nan, 0.25, -0.25], channels: 2, timestamp: 0)
    let clippedExpected: [Int16] = [.max, .min, .max, 0, 8192, -8192]
    #expect(clipped.samples == clippedExpected)
    #expect(clipped.samplesPerChannel == 3)
}

@Test func channelConversion() {
    let mono = AudioFrame(samples: [100, -3, .max], channels: 1, timestamp: 480)
    let stereo = mono.converted(toChannels: 2)
    #expect(stereo.samples == [100, 100, -3, -3, .max, .max] && stereo.channels == 2 && stereo.timestamp == 480)
    #expect(stereo.converted(toChannels: 1) == mono)
    let mixed = AudioFrame(samples: [100, 200, .max, .max, .min, .min, -1, 2], channels: 2, timestamp: 0).converted(
        toChannels: 1
    )
    #expect(mixed.samples == [150, .max, .min, 0])
    #expect(mono.converted(toChannels: 1) == mono)
}
