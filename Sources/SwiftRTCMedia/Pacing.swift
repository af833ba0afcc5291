/// How a source hands out frames.
public enum Pacing: Sendable, Hashable {
    /// Each frame is released when its presentation time comes (timestamps relative to the
    /// first frame, against a monotonic clock), as a live capture would produce it.
    case realTime
    /// Every frame at once, as fast as the consumer takes them (tests, transcoding, files).
    case asFastAsPossible
}

/// The one pacing mechanism shared by all sources (``PacedFrames`` for pulled sources,
/// ``PushSource`` for pushed ones): in ``Pacing/realTime`` it sleeps until a frame's
/// timestamp is due. Timing follows the frames' own timestamps (wrapping RTP timestamps are
/// unwrapped), so gaps and irregular frame durations play as recorded. A consumer that falls
/// behind is not waited for: late frames are released at once and the schedule is kept.
struct Pacer {
    let pacing: Pacing
    private var start: ContinuousClock.Instant?
    private var lastTimestamp: UInt64 = 0
    /// Media time since the first frame, in clock ticks (unwrapped).
    private var elapsedTicks: Int64 = 0

    init(pacing: Pacing) { self.pacing = pacing }

    /// Makes the next frame due at once, the frames after it paced from it.
    mutating func restart() {
        start = nil
        elapsedTicks = 0
    }

    /// Waits until `frame` is due, or when it is already late (the producer paused) makes it
    /// due now, the frames after it paced from it: no burst to catch up.
    mutating func waitOrResync<Frame: TimedFrame>(for frame: Frame) async throws {
        guard pacing == .realTime, let start else { return try await wait(for: frame) }
        let elapsed =
            elapsedTicks + Self.signedDelta(from: lastTimestamp, to: frame.mediaTimestamp, bits: Frame.timestampBits)
        let rate = Int64(Swift.max(1, frame.clockRate))
        let due = start + .seconds(elapsed / rate) + .nanoseconds((elapsed % rate) * 1_000_000_000 / rate)
        if due < ContinuousClock.now { restart() }
        try await wait(for: frame)
    }

    /// Waits until `frame` is due.
    mutating func wait<Frame: TimedFrame>(for frame: Frame) async throws {
        guard pacing == .realTime else { return }
        let now = ContinuousClock.now
        guard let start else {
            start = now
            lastTimestamp = frame.mediaTimestamp
            return
        }
        elapsedTicks += Self.signedDelta(from: lastTimestamp, to: frame.mediaTimestamp, bits: Frame.timestampBits)
        lastTimestamp = frame.mediaTimestamp
        let rate = Int64(Swift.max(1, frame.clockRate))
        let due = start + .seconds(elapsedTicks / rate) + .nanoseconds((elapsedTicks % rate) * 1_000_000_000 / rate)
        if due > now { try await Task.sleep(until: due, clock: .continuous) }
    }

    /// `to - from` as a signed distance on a clock `bits` wide (RTP timestamps wrap at 2^32).
    static func signedDelta(from: UInt64, to: UInt64, bits: Int) -> Int64 {
        let difference = to &- from
        guard bits < 64 else { return Int64(bitPattern: difference) }
        let shift = UInt64(64 - bits)
        return Int64(bitPattern: difference << shift) >> Int64(shift)
    }
}
