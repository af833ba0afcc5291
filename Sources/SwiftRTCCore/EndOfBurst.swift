#if canImport(Glibc)
import Glibc
#endif

/// Work a transport thread puts off until the end of its current burst: the datagrams that
/// one turn of its loop found ready. A data channel receiving many small messages hands them
/// to its reader once per burst instead of once per message, so the reading task is woken
/// once for all of them (waking a task costs more than a small message's whole receive path).
///
/// A transport thread calls ``run(_:)`` around its loop and ``finishBurst()`` between turns
/// (before it waits for the next datagrams); on any other thread ``schedule(_:)`` returns
/// false and the caller does the work at once.
package enum EndOfBurst {
    /// Something with work put off until the end of the burst.
    package protocol Flushing: AnyObject, Sendable {
        /// Called once per ``schedule(_:)`` that returned true, on the same thread, at the end
        /// of that burst.
        func endOfBurst()
    }

    /// Puts off `flushing`'s work until the end of this thread's burst: true when this is a
    /// transport thread (the work will be done), false otherwise (do it now).
    package static func schedule(_ flushing: any Flushing) -> Bool {
        guard let pointer = pthread_getspecific(key) else { return false }
        let pending = Unmanaged<Pending>.fromOpaque(pointer).takeUnretainedValue()
        pending.waiting.append(flushing)
        return true
    }

    /// Does the work put off in this burst (between turns of a transport thread's loop).
    package static func finishBurst() {
        guard let pointer = pthread_getspecific(key) else { return }
        let pending = Unmanaged<Pending>.fromOpaque(pointer).takeUnretainedValue()
        while !pending.waiting.isEmpty {
            // Work done here may put off more (a flush that schedules again); it runs too.
            swap(&pending.waiting, &pending.running)
            for flushing in pending.running { flushing.endOfBurst() }
            pending.running.removeAll(keepingCapacity: true)
        }
    }

    /// Runs `loop` with this thread made a transport thread for ``schedule(_:)``; what is
    /// still put off when it returns is done then.
    package static func run(_ loop: () -> Void) {
        let pending = Unmanaged.passRetained(Pending())
        pthread_setspecific(key, pending.toOpaque())
        loop()
        finishBurst()
        pthread_setspecific(key, nil)
        pending.release()
    }

    /// One transport thread's put-off work (touched by that thread only).
    private final class Pending {
        var waiting: [any Flushing] = []
        var running: [any Flushing] = []
        init() {
            waiting.reserveCapacity(64)
            running.reserveCapacity(64)
        }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}
