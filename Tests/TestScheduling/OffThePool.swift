import Foundation

/// Runs blocking work (a child process to its end, a sleep, a CPU-heavy loop) on a thread of
/// its own and awaits its result.
///
/// The whole test suite runs in parallel on the cooperative pool, which has one thread per
/// core (two here). A test that blocks one of them stalls every other test meanwhile: timers
/// fire late, ICE consent and restart deadlines pass, a one-second sleep lasts a minute.
/// Tests therefore never block a pool thread; they hand blocking work to this.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try work() })
        }
    }
}
