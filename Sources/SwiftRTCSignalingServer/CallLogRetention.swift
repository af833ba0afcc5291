/// How long and how many ended calls the call log keeps (``SignalingServer/Configuration/callLogRetention``).
///
/// The server removes ended calls older than ``maxAge``, and the oldest beyond ``maxCalls``,
/// once a minute and after every ``pruneInterval`` new calls: the log never holds more than
/// ``maxCalls`` + ``pruneInterval`` ended calls. Calls in progress are never removed (each
/// user has at most ``SignalingServer/Configuration/maxOpenCallsPerUser`` open, and unanswered
/// ones end after the ring timeout).
public struct CallLogRetention: Sendable, Hashable {
    /// Ended calls older than this (by their end) are removed; at least one minute.
    public var maxAge: Duration
    /// The most ended calls kept; the oldest beyond it are removed; at least 1.
    public var maxCalls: Int

    /// Default of ``maxAge``: 90 days.
    public static let defaultMaxAge: Duration = .seconds(90 * 86_400)
    /// Default of ``maxCalls`` for a log on disk (SQLite file or PostgreSQL): a million.
    public static let defaultMaxCalls = 1_000_000
    /// Default of ``maxCalls`` for a log in memory (no `--database`): 100,000 calls, about
    /// 100 MB at the largest records users can make.
    public static let defaultMaxCallsInMemory = 100_000

    /// A retention; values under the minimums are raised to them.
    public init(maxAge: Duration = defaultMaxAge, maxCalls: Int = defaultMaxCalls) {
        self.maxAge = max(maxAge, .seconds(60))
        self.maxCalls = max(1, maxCalls)
    }

    /// New calls between two prunes, at most: a tenth of ``maxCalls``, between 1 and 1000.
    public var pruneInterval: Int { min(1_000, max(1, maxCalls / 10)) }
}
