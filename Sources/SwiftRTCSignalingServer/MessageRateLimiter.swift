import SwiftRTCCore

/// A token bucket per connection: up to `burst` messages at once, refilled at `perSecond`.
/// A message that finds the bucket empty is refused (the server answers it with an error).
struct MessageRateLimiter: Sendable {
    let perSecond: Double
    let burst: Double
    private var tokens: Double
    private var last: ContinuousClock.Instant

    init(perSecond: Double, burst: Int, now: ContinuousClock.Instant = .now) {
        self.perSecond = perSecond
        self.burst = Double(burst)
        self.tokens = Double(burst)
        self.last = now
    }

    /// Whether the bucket has refilled to `burst` by `now` (nothing taken from it matters any more).
    func isFull(now: ContinuousClock.Instant) -> Bool {
        tokens + (now - last).seconds * perSecond >= burst
    }

    /// Takes one token if there is one.
    mutating func allow(now: ContinuousClock.Instant = .now) -> Bool {
        let elapsed = now - last
        last = now
        let seconds = elapsed.seconds
        tokens = min(burst, tokens + seconds * perSecond)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
