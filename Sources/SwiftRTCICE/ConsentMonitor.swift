import SwiftRTCCore

/// Decides the state an agent reports from libnice's component state and how long the peer
/// has been silent (see ``IceAgent/ConsentTiming``). Pure logic: the agent feeds it libnice's
/// states, the count of datagrams that keep consent (received, or once required only those
/// proved authentic: the data plane only increments a counter) and the time, from a timer on
/// the transport thread.
struct ConsentMonitor {
    let timing: IceAgent.ConsentTiming
    /// The state libnice reports, mapped.
    private(set) var transportState: IceConnectionState = .new
    private var lastActivity: ContinuousClock.Instant
    private var lastCount: UInt64 = 0
    private var expired = false
    private var closed = false
    /// After an ICE restart of a connection that was silent: stays `disconnected` until a
    /// datagram arrives or libnice reports the new pair up (a restart is no proof of a path).
    private var awaitingProof = false

    init(timing: IceAgent.ConsentTiming, now: ContinuousClock.Instant) {
        self.timing = timing
        lastActivity = now
    }

    private static func isUp(_ state: IceConnectionState) -> Bool {
        state == .connected || state == .completed
    }

    /// libnice's component state changed.
    mutating func transportChanged(to state: IceConnectionState, now: ContinuousClock.Instant) {
        // libnice goes back to CONNECTING when remote candidates come after a pair was
        // selected (trickle, a peer-reflexive address learned first) and may stay there while
        // the selected pair carries everything. A working pair stays `connected` (W3C: checks
        // may go on in that state); only failure or consent expiry bring it down.
        if state == .checking && Self.isUp(transportState) {
            transportState = .connected
            return
        }
        // Connectivity was just proven by a check: the silence clock starts now.
        if Self.isUp(state) && !Self.isUp(transportState) {
            lastActivity = now
            awaitingProof = false
        }
        transportState = state
    }

    /// `count` datagrams have been received in total.
    mutating func observe(receivedCount count: UInt64, now: ContinuousClock.Instant) {
        if count != lastCount {
            lastCount = count
            lastActivity = now
            awaitingProof = false
        }
    }

    /// An ICE restart: consent can be won again.
    mutating func restarted(now: ContinuousClock.Instant) {
        if Self.isUp(transportState), now - lastActivity >= timing.disconnectedAfter { awaitingProof = true }
        expired = false
        lastActivity = now
    }

    mutating func close() { closed = true }

    /// Why the state is what it is, for a log line: libnice's state and the peer's silence.
    func why(now: ContinuousClock.Instant) -> String {
        let milliseconds = (now - lastActivity).milliseconds
        return
            "libnice \(transportState), \(milliseconds) ms since the last datagram\(expired ? ", consent expired" : "")"
    }

    /// The state to report at `now`. Once silence reaches `failedAfter` the state stays
    /// failed until ``restarted(now:)``.
    mutating func state(now: ContinuousClock.Instant) -> IceConnectionState {
        if closed { return .closed }
        if expired { return .failed }
        guard Self.isUp(transportState) else { return transportState }
        let silence = now - lastActivity
        if awaitingProof { return silence >= timing.failedAfter ? .failed : .disconnected }
        if silence >= timing.failedAfter {
            expired = true
            return .failed
        }
        return silence >= timing.disconnectedAfter ? .disconnected : transportState
    }
}
