/// The clock the call timers (dialing, answer timeout, disconnect timeout, stats) sleep on.
///
/// ``continuous`` is real time. Tests pass a faster clock so that timers of the configured
/// (minimum-respecting) intervals run in a fraction of the time.
public struct CallClock: Sendable {
    private let scale: Double

    /// Real time.
    public static let continuous = CallClock(scale: 1)

    /// A clock on which every interval lasts `1 / speedUp` of its real time (for tests and
    /// simulations: a 3 s dialing interval at `speedUp: 10` fires every 300 ms).
    public static func accelerated(by speedUp: Double) -> CallClock { CallClock(scale: 1 / max(1, speedUp)) }

    /// Sleeps for `duration` of this clock's time.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration * scale)
    }
}
