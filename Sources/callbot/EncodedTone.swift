import SwiftRTC
import SwiftRTCCore

/// The load test's tone: one second of a 440 Hz tone (which repeats exactly after a second)
/// encoded once per process into 50 Opus frames of 20 ms, then looped with running
/// timestamps. Every bot sends real Opus that its peers decode, and a thousand bots cost no
/// encoder time: encoding a stream per bot would take the load generator's whole CPU.
struct EncodedTone: MediaSource, Sendable {
    /// The frames' payloads, shared by every bot.
    static let payloads: [[UInt8]] = {
        guard let encoder = try? OpusEncoder() else { return [] }
        var tone = ToneGenerator()
        return (0..<framesPerLoop).compactMap { _ in tone.readFrame().flatMap { try? encoder.encode($0).data } }
    }()
    static let framesPerLoop = 50
    static let samplesPerFrame: UInt32 = 960

    private var index: UInt32 = 0

    mutating func readFrame() -> EncodedFrame? {
        let payloads = Self.payloads
        guard !payloads.isEmpty else { return nil }
        defer { index &+= 1 }
        return EncodedFrame(
            codec: .opus,
            data: payloads[Int(index % UInt32(payloads.count))],
            timestamp: index &* Self.samplesPerFrame,
            isKeyframe: true
        )
    }
}
