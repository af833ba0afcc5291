/// The calls each user may start (``SignalingServer/Configuration/callsPerMinutePerUser``): a
/// token bucket per user, a third of a minute's calls at once. A call re-sent for a session
/// that exists already (clients re-send until answered) does not count; one over the budget is
/// refused (429) and counted (`callsOverRateLimit`). It bounds how fast one account can fill
/// the call log.
struct CallStartBudget: Sendable {
    /// Users with a bucket at once; when full, the buckets that have refilled are forgotten,
    /// and a user who still finds no room is let through uncounted by the budget (counted in
    /// ``usersNotTracked``). Users are the operator's accounts, so this is rarely reached.
    static let maxUsers = 10_000

    let perMinute: Int
    private var buckets: [String: MessageRateLimiter] = [:]
    /// Calls let through because ``maxUsers`` users had buckets.
    private(set) var usersNotTracked = 0

    /// `perMinute` is raised to at least 1.
    init(perMinute: Int) {
        self.perMinute = max(1, perMinute)
    }

    /// Takes one call from `user`'s budget if there is one.
    mutating func allow(_ user: String, now: ContinuousClock.Instant = .now) -> Bool {
        if buckets[user] == nil, buckets.count >= Self.maxUsers {
            buckets = buckets.filter { !$0.value.isFull(now: now) }
        }
        guard var bucket = buckets[user] ?? newBucket(now: now) else {
            usersNotTracked += 1
            return true
        }
        let allowed = bucket.allow(now: now)
        buckets[user] = bucket
        return allowed
    }

    private func newBucket(now: ContinuousClock.Instant) -> MessageRateLimiter? {
        guard buckets.count < Self.maxUsers else { return nil }
        return MessageRateLimiter(perSecond: Double(perMinute) / 60, burst: max(1, perMinute / 3), now: now)
    }
}
