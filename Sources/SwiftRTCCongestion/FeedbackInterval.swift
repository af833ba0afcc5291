import SwiftRTCRTP

/// When the receiver's congestion feedback (transport-cc or REMB) is due. Feedback keeps to
/// 5% of the bitrate received, as RTCP does (RFC 3550 §6.2) and as libwebrtc sizes its
/// transport-cc interval, counting ``feedbackBits`` per feedback packet; never more often
/// than every ``minimum`` and never less often than every ``maximum``. Video gets feedback
/// every 100 ms; audio alone (about 50 kbit/s with its headers) every 250 ms, which is 60%
/// fewer RTCP packets for a process full of audio calls.
///
/// Pure arithmetic on seconds of a monotonic clock; no allocation.
public struct FeedbackInterval: Sendable {
    /// The shortest and the longest interval (seconds).
    public static let minimum = 0.1
    public static let maximum = 0.25
    /// The share of the received bitrate feedback may take.
    public static let share = 0.05
    /// The size of one feedback packet in bits with its IP, UDP and SRTCP overhead
    /// (libwebrtc's estimate for transport-cc: 68 bytes).
    public static let feedbackBits = 68.0 * 8
    /// Feedback due this much (seconds) before its time goes out now: a tick that comes a
    /// little early does not push it back by a whole tick.
    static let slack = 0.005

    private var bytes = 0
    private var start: Double?

    /// Creates a schedule that waits for the first packet.
    public init() {}

    /// `count` bytes of RTP arrived at `now`; the first packet starts the first interval.
    public mutating func received(bytes count: Int, at now: Double) {
        if start == nil { start = now }
        bytes += count
    }

    /// The interval for a `bitrate` received (bits/s).
    public static func interval(forBitrate bitrate: Double) -> Double {
        min(maximum, max(minimum, feedbackBits / (share * bitrate)))
    }

    /// Whether feedback is due at `now`; when it is, the next interval starts.
    public mutating func due(now: Double) -> Bool {
        guard let start else { return false }
        let elapsed = now - start
        guard elapsed + Self.slack >= Self.minimum else { return false }
        let bitrate = Double(bytes) * 8 / max(elapsed, Self.minimum)
        guard elapsed + Self.slack >= Self.interval(forBitrate: bitrate) else { return false }
        self.start = now
        bytes = 0
        return true
    }
}
