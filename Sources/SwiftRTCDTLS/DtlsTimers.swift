import Dispatch
import Foundation
import Synchronization

/// The retransmission and resend timers of every ``DtlsTransport`` in the process, on one
/// thread of their own (`swiftrtc-dtls-timers`).
///
/// Each transport has at most one deadline here; setting one replaces the last, and
/// `distantFuture` removes it. When a deadline passes, the thread runs the transport's timer
/// on the transport's queue. A dispatch timer source per transport cost more than its
/// handshake's packets: creating, re-arming and cancelling one each wakes libdispatch's
/// manager thread (an eventfd write and a thread switch), several times per connection
/// (13% of the CPU of a set-up, issue 22's profile). Here a deadline is a dictionary entry
/// under a lock; the thread is woken only when a deadline comes before the one it sleeps
/// until, which a handshake's retransmission time (a second or more ahead) rarely does.
///
/// The table holds one entry per transport that has a timer set (a handshake in progress, a
/// last flight not yet confirmed): no other limit is needed. The thread ends after
/// ``idleExit`` with no deadline and starts again with the next one.
///
/// A deadline taken as due runs the transport's timer only if the transport has not set
/// another (or cancelled it) before its queue gets there: see ``DtlsTransport/timerDue(_:)``.
final class DtlsTimers: Sendable {
    static let shared = DtlsTimers()
    /// How long the thread waits with nothing to do before it ends.
    static let idleExit = DispatchTimeInterval.seconds(10)

    private struct Entry {
        var deadline: UInt64
        weak var transport: DtlsTransport?
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        var running = false
        /// The deadline the thread sleeps until (`UInt64.max`: none).
        var sleepingUntil = UInt64.max
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Runs `transport`'s timer at `deadline`, instead of any deadline set before;
    /// `distantFuture` cancels it.
    func schedule(_ transport: DtlsTransport, at deadline: DispatchTime) {
        guard deadline != .distantFuture else { return cancel(ObjectIdentifier(transport)) }
        let nanoseconds = deadline.uptimeNanoseconds
        let (start, signal) = state.withLock { state -> (Bool, Bool) in
            state.entries[ObjectIdentifier(transport)] = Entry(deadline: nanoseconds, transport: transport)
            if !state.running {
                state.running = true
                return (true, false)
            }
            return (false, nanoseconds < state.sleepingUntil)
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "swiftrtc-dtls-timers"
            thread.start()
        } else if signal {
            wake.signal()
        }
    }

    /// Removes the deadline of the transport `id`, if it has one (also from its `deinit`).
    func cancel(_ id: ObjectIdentifier) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    private func run() {
        var due: [(transport: DtlsTransport, deadline: UInt64)] = []
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let next = state.withLock { state -> UInt64 in
                var next = UInt64.max
                var passed: [ObjectIdentifier] = []
                for (id, entry) in state.entries {
                    if entry.deadline <= now || entry.transport == nil {
                        passed.append(id)
                        if let transport = entry.transport { due.append((transport, entry.deadline)) }
                    } else {
                        next = min(next, entry.deadline)
                    }
                }
                for id in passed { state.entries.removeValue(forKey: id) }
                state.sleepingUntil = next
                return next
            }
            for (transport, deadline) in due { transport.timerDue(deadline) }
            due.removeAll(keepingCapacity: true)
            if next != .max {
                _ = wake.wait(timeout: DispatchTime(uptimeNanoseconds: next))
            } else if wake.wait(timeout: .now() + Self.idleExit) == .timedOut {
                let ended = state.withLock { state -> Bool in
                    guard state.entries.isEmpty else { return false }
                    state.running = false
                    return true
                }
                if ended { return }
            }
        }
    }
}

extension DtlsTransport {
    /// Sets the transport's one timer to `deadline`, replacing the one set before (on the
    /// queue); `distantFuture` cancels it.
    func setTimer(at deadline: DispatchTime) {
        guard deadline != .distantFuture else { return cancelTimer() }
        timerDeadline = deadline.uptimeNanoseconds
        DtlsTimers.shared.schedule(self, at: deadline)
    }

    /// Cancels the transport's timer (on the queue).
    func cancelTimer() {
        timerDeadline = nil
        DtlsTimers.shared.cancel(ObjectIdentifier(self))
    }

    /// Called by ``DtlsTimers`` when `deadline` has passed: runs ``timerFired()`` on the
    /// queue if `deadline` is still the one set. The timer thread may take a deadline as due
    /// just as the queue replaces or cancels it (the handshake completing, the peer
    /// confirming the keys): that deadline's run is dropped, or the last flight would go out
    /// again at once instead of a resend interval later.
    func timerDue(_ deadline: UInt64) {
        queue.async { [self] in
            guard timerDeadline == deadline else { return }
            timerDeadline = nil
            timerFired()
        }
    }
}
