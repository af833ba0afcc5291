import Synchronization

/// Counts how often each ``RemoteInputLimit`` was hit, for one connection (reported in its
/// transport stats). Hits are rare (only a dishonest or broken peer causes them), so one
/// lock serves all counters; counting never allocates.
public final class LimitHits: Sendable {
    private let counts = Mutex([Int64](repeating: 0, count: RemoteInputLimit.allCases.count))

    /// Starts with every counter at 0.
    public init() {}

    /// Counts one hit of `limit`.
    public func hit(_ limit: RemoteInputLimit, count: Int64 = 1) {
        counts.withLock { $0[limit.rawValue] &+= count }
    }

    /// How often `limit` was hit.
    public func count(_ limit: RemoteInputLimit) -> Int64 {
        counts.withLock { $0[limit.rawValue] }
    }

    /// Every limit hit at least once, with its count.
    public var nonZero: [(limit: RemoteInputLimit, count: Int64)] {
        let values = counts.withLock { $0 }
        return zip(RemoteInputLimit.allCases, values).filter { $0.1 > 0 }.map { (limit: $0.0, count: $0.1) }
    }
}
