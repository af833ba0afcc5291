import Foundation
import SwiftRTCCore
import Synchronization

/// The receive-side timer of every connection in the process: every 10 ms, on one thread of
/// its own, each transport's receivers release the frames due for playout (frames also leave
/// as packets arrive) and send the feedback that is due (NACK, PLI, FIR); transports that
/// receive only audio take every other tick (20 ms, one Opus frame). Every 50 ms each
/// transport's congestion controller sends its feedback (transport-cc or REMB) if its
/// ``FeedbackInterval`` says it is due (every 100 ms with video, 250 ms with audio alone).
///
/// One thread wakes 100 times a second however many connections there are. (Timer tasks per
/// connection cost a dispatch timer, a task wake-up and an actor hop per connection and tick:
/// with a thousand connections, more than all their packets.) The thread runs while any
/// transport is registered and ends when the last one leaves.
final class FeedbackTicker: Sendable {
    static let shared = FeedbackTicker()
    /// How often feedback and jitter-buffer releases run.
    static let interval: Duration = .milliseconds(10)
    /// Congestion feedback is looked at every this many ticks (50 ms).
    static let congestionEvery = 5

    private struct State {
        var transports: [ObjectIdentifier: PeerTransport] = [:] {
            didSet { changed = true }
        }
        /// The transports as an array, rebuilt by the next tick after they changed (at most
        /// once per tick, however many calls came or went: rebuilding on every add and remove
        /// made setting up and closing N connections cost N² copies): a tick takes it without
        /// allocating, and visits them without retaining each.
        var snapshot = UnretainedArray<PeerTransport>()
        var changed = false
        var running = false

        /// The transports for this tick.
        mutating func current() -> UnretainedArray<PeerTransport> {
            if changed {
                snapshot = UnretainedArray(Array(transports.values))
                changed = false
            }
            return snapshot
        }
    }

    private let state = Mutex(State())

    /// `transport` gets ticks from now on, until ``remove(_:)``.
    func add(_ transport: PeerTransport) {
        let start = state.withLock { state -> Bool in
            state.transports[ObjectIdentifier(transport)] = transport
            defer { state.running = true }
            return !state.running
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "swiftrtc-feedback"
            thread.start()
        }
    }

    /// `transport` gets no more ticks (it may get one that has already begun). The ticker lets
    /// go of it at its next tick, within ``interval``.
    func remove(_ transport: PeerTransport) {
        _ = state.withLock { $0.transports.removeValue(forKey: ObjectIdentifier(transport)) }
    }

    private func run() {
        let clock = ContinuousClock()
        var next = clock.now
        var tick = 0
        while true {
            let transports = state.withLock { state -> UnretainedArray<PeerTransport> in
                if state.transports.isEmpty { state.running = false }
                return state.current()
            }
            if transports.isEmpty { return }
            let now = NTPTime.monotonicSeconds()
            tick += 1
            let even = tick % 2 == 0, congestion = tick % Self.congestionEvery == 0
            transports.forEach { $0.tickFeedback(now: now, audioTick: even, congestionTick: congestion) }
            // On a 10 ms grid; a tick that ran long is not made up for.
            next += Self.interval
            let current = clock.now
            if next < current { next = current }
            let wait = next - current
            let nanoseconds = wait.nanoseconds
            var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
            var remaining = timespec()
            while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
        }
    }
}
