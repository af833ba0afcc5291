import Foundation
import SwiftRTCCodecs

/// Frame-by-frame voice activity detection on 48 kHz PCM, in the spirit of WebRTC's VAD:
/// the signal is cut into 10 ms blocks; each block's energy in the voice band (80 Hz-4 kHz,
/// cascaded biquad filters) and in the whole band is measured; a block is speech when its
/// voice-band energy stands well above an adaptive noise floor *and* most of its energy above
/// the background lies in the voice band (a burst of white or other broadband noise does not); a hangover keeps short gaps
/// between syllables and unvoiced consonants inside a talk spurt. The noise floor follows
/// quiet blocks down at once and rises (by minimum statistics) to the quietest block of the
/// last 1.5 s, so a steady noise or hum, loud or not, is learnt as background within about
/// two seconds while speech, which dips between syllables, is not. Cost: a few multiply-adds
/// per sample, no allocation after init.
public struct VoiceActivityDetector: Sendable {
    /// How far (dB) a block's voice-band energy must rise above the noise floor.
    public var thresholdDecibels: Double = 9
    /// Blocks quieter than this (dBFS, voice band) are never speech.
    public var minimumSpeechDecibels: Double = -55
    /// Share of the block's energy that must lie in the voice band.
    public var minimumVoiceBandRatio: Double = 0.5
    /// Speech is held this long after the last speech block.
    public var hangoverMilliseconds: Int = 200

    /// Current noise floor estimate in dBFS (voice band).
    public var noiseFloorDecibels: Double { voiceFloor.decibels }
    private var voiceFloor = NoiseFloor()
    private var totalFloor = NoiseFloor()
    private var hangoverBlocks = 0
    private var highPass = Biquad.highPass(cutoff: 80)
    private var lowPass1 = Biquad.lowPass(cutoff: 4000)
    private var lowPass2 = Biquad.lowPass(cutoff: 4000)
    private var dcBlock = Biquad.highPass(cutoff: 20)
    private var blockVoiceEnergy: Double = 0
    private var blockTotalEnergy: Double = 0
    private var blockFill = 0

    static let blockSamples = AudioFrame.sampleRate / 100

    /// A detector with the default thresholds, its noise floor not yet learnt.
    public init() {}

    /// Whether `frame` holds speech (any 10 ms block of it, hangover included). Stereo is
    /// mixed down; frames of any length work, blocks continue across frames.
    public mutating func isSpeech(_ frame: AudioFrame) -> Bool {
        var speech = false
        let channels = frame.channels
        var index = 0
        while index + channels <= frame.samples.count {
            var sample = 0.0
            for channel in 0..<channels { sample += Double(frame.samples[index + channel]) }
            sample /= Double(channels) * 32768
            index += channels
            let full = dcBlock.process(sample)
            let voice = lowPass2.process(lowPass1.process(highPass.process(full)))
            blockTotalEnergy += full * full
            blockVoiceEnergy += voice * voice
            blockFill += 1
            if blockFill == Self.blockSamples {
                speech = classifyBlock() || speech
                blockFill = 0
                blockTotalEnergy = 0
                blockVoiceEnergy = 0
            }
        }
        return speech || hangoverBlocks > 0
    }

    private mutating func classifyBlock() -> Bool {
        let n = Double(Self.blockSamples)
        let voice = blockVoiceEnergy / n, total = blockTotalEnergy / n
        let voiceDecibels = 10 * log10(voice + 1e-12)
        // The share of the block's energy above the background that lies in the voice band:
        // speech in steady broadband noise keeps a high share; a burst of such noise does not.
        let excessVoice = max(0, voice - voiceFloor.linear), excessTotal = max(1e-12, total - totalFloor.linear)
        let ratio = excessVoice / excessTotal
        let active =
            voiceDecibels > max(voiceFloor.decibels + thresholdDecibels, minimumSpeechDecibels)
            && ratio >= minimumVoiceBandRatio
        voiceFloor.update(voiceDecibels)
        totalFloor.update(10 * log10(total + 1e-12))
        if active {
            hangoverBlocks = hangoverMilliseconds / 10
        } else if hangoverBlocks > 0 {
            hangoverBlocks -= 1
        }
        return active
    }
}

/// A background level estimate by minimum statistics: follows quieter blocks down at once and
/// rises by at most 0.5 dB per block towards the quietest block of the last 1.5 s.
struct NoiseFloor: Sendable {
    private(set) var decibels: Double = -70
    /// Levels of the last 150 blocks (a ring; no allocation after init).
    private var recent = [Double](repeating: 0, count: 150)
    private var index = 0

    /// The floor as a mean energy.
    var linear: Double { pow(10, decibels / 10) }

    mutating func update(_ level: Double) {
        recent[index] = level
        index = (index + 1) % recent.count
        let quietest = recent.min() ?? level
        if level < decibels {
            decibels = max(level, -100)
        } else if quietest > decibels {
            decibels += min(0.5, quietest - decibels)
        }
    }
}

/// A second-order IIR section (RBJ cookbook), direct form I.
struct Biquad: Sendable {
    var b0, b1, b2, a1, a2: Double
    private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        (self.b0, self.b1, self.b2, self.a1, self.a2) = (b0, b1, b2, a1, a2)
    }

    static func lowPass(cutoff: Double, rate: Double = Double(AudioFrame.sampleRate)) -> Biquad {
        let w = 2 * Double.pi * cutoff / rate, alpha = sin(w) / (2 * 0.7071), c = cos(w), a0 = 1 + alpha
        return Biquad(
            b0: (1 - c) / 2 / a0,
            b1: (1 - c) / a0,
            b2: (1 - c) / 2 / a0,
            a1: -2 * c / a0,
            a2: (1 - alpha) / a0
        )
    }

    static func highPass(cutoff: Double, rate: Double = Double(AudioFrame.sampleRate)) -> Biquad {
        let w = 2 * Double.pi * cutoff / rate, alpha = sin(w) / (2 * 0.7071), c = cos(w), a0 = 1 + alpha
        return Biquad(
            b0: (1 + c) / 2 / a0,
            b1: -(1 + c) / a0,
            b2: (1 + c) / 2 / a0,
            a1: -2 * c / a0,
            a2: (1 - alpha) / a0
        )
    }

    mutating func process(_ x: Double) -> Double {
        let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1
        x1 = x
        y2 = y1
        y1 = y
        return y
    }
}
