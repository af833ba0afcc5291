import Synchronization

/// Flow control of a throughput run: the sender may be at most `size` packets (or frames)
/// ahead of what the receiving application got, so the run measures what the stack carries
/// rather than how fast a socket buffer overflows. The sender suspends (no spinning) until
/// the receiver catches up.
final class Window: Sendable {
    private struct State {
        var sent = 0
        var received = 0
        /// Packets given up on (lost in flight): no longer count against the window.
        var abandoned = 0
        var waiter: CheckedContinuation<Void, Never>?
        var finished = false
        /// When the last one was received (or the window was made).
        var lastReceived = ContinuousClock.now

        var inFlight: Int { sent - received - abandoned }
    }

    let size: Int
    private let state = Mutex(State())

    init(size: Int) { self.size = size }

    var counts: (sent: Int, received: Int) { state.withLock { ($0.sent, $0.received) } }
    /// When the last one was received (or the window was made, or ``restartClock()``).
    var lastReceived: ContinuousClock.Instant { state.withLock { $0.lastReceived } }

    /// Takes now as the time of the last one received (the start of a run).
    func restartClock() { state.withLock { $0.lastReceived = .now } }

    /// Waits until one more may be sent, and counts it as sent.
    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = state.withLock { state in
                if state.finished || state.inFlight < size {
                    state.sent += 1
                    return true
                }
                state.waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Counts one as sent without waiting (priming the path before the run).
    func countSent() { state.withLock { $0.sent += 1 } }

    /// Counts one received; wakes the sender once half the window is free again.
    func received(_ count: Int = 1) {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.received += count
            state.lastReceived = .now
            // One given up on arrived after all: it no longer frees a place twice.
            state.abandoned -= min(state.abandoned, max(0, -state.inFlight))
            guard let waiter = state.waiter, state.inFlight <= size / 2 else { return nil }
            state.waiter = nil
            state.sent += 1  // the waiting sender's packet
            return waiter
        }
        waiter?.resume()
    }

    /// Gives up on what is in flight (called when nothing arrived for a while: it was lost),
    /// so a loss does not stop the sender for good.
    func abandonInFlight() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.abandoned += state.inFlight
            defer { state.waiter = nil }
            if state.waiter != nil { state.sent += 1 }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Ends the run: a waiting sender goes on (and finds the run over).
    func finish() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
