/// Trimming of leading and trailing silence from a recording (the silence-trimming option of
/// voice chat apps): nothing is written before the first speech except `preRoll`, and on
/// close everything after the last speech except `postRoll` is cut. Speech is decided by a
/// ``VoiceActivityDetector`` on PCM, or by the caller for encoded audio.
public struct SilenceTrimming: Sendable, Hashable {
    /// Audio kept before the first speech, in milliseconds.
    public var preRollMilliseconds: Int
    /// Audio kept after the last speech, in milliseconds (beyond the detector's hangover).
    public var postRollMilliseconds: Int

    /// Trimming that keeps `preRollMilliseconds` before the first and
    /// `postRollMilliseconds` after the last speech.
    public init(preRollMilliseconds: Int = 100, postRollMilliseconds: Int = 100) {
        self.preRollMilliseconds = preRollMilliseconds
        self.postRollMilliseconds = postRollMilliseconds
    }
}

/// Holds frames before the first speech (keeping the last `preRoll` worth) and tells when to
/// release them; shared by the recorders.
struct LeadingSilenceGate<Frame> {
    let preRollSamples: Int
    private(set) var hasStarted = false
    private var held: [(frame: Frame, samples: Int)] = []
    private var heldSamples = 0

    init(preRollSamples: Int) { self.preRollSamples = preRollSamples }

    /// The frames to write now: none while silence lasts, the pre-roll plus `frame` at the
    /// first speech, and `frame` alone afterwards.
    mutating func admit(_ frame: Frame, samples: Int, isSpeech: Bool) -> [Frame] {
        if hasStarted { return [frame] }
        held.append((frame, samples))
        heldSamples += samples
        if isSpeech {
            hasStarted = true
            defer {
                held = []
                heldSamples = 0
            }
            return held.map(\.frame)
        }
        while heldSamples - (held.first?.samples ?? 0) >= preRollSamples + samples, !held.isEmpty {
            heldSamples -= held.removeFirst().samples
        }
        return []
    }
}
