import Testing
import TransportTestSupport

@testable import SwiftRTCICE

@Test func silenceMakesDisconnectedThenFailedAndTrafficBringsItBack() {
    let start = ContinuousClock.now
    var monitor = ConsentMonitor(timing: .init(disconnectedAfter: .seconds(5), failedAfter: .seconds(30)), now: start)
    #expect(monitor.state(now: start) == .new)
    monitor.transportChanged(to: .checking, now: start)
    // Silence before connectivity counts for nothing.
    #expect(monitor.state(now: start + .seconds(60)) == .checking)
    monitor.transportChanged(to: .completed, now: start + .seconds(60))
    let up = start + .seconds(60)
    #expect(monitor.state(now: up + .seconds(4)) == .completed)
    #expect(monitor.state(now: up + .seconds(5)) == .disconnected)
    monitor.observe(receivedCount: 1, now: up + .seconds(6))
    #expect(monitor.state(now: up + .seconds(6)) == .completed)
    // The same count again is no traffic.
    monitor.observe(receivedCount: 1, now: up + .seconds(12))
    #expect(monitor.state(now: up + .seconds(12)) == .disconnected)
    #expect(monitor.state(now: up + .seconds(36)) == .failed)
    // Consent expired: traffic alone does not undo it, a restart does.
    monitor.observe(receivedCount: 2, now: up + .seconds(37))
    #expect(monitor.state(now: up + .seconds(37)) == .failed)
    monitor.restarted(now: up + .seconds(38))
    #expect(monitor.state(now: up + .seconds(38)) == .completed)
    monitor.close()
    #expect(monitor.state(now: up + .seconds(38)) == .closed)
}

@Test func libniceFailureIsFailedWhateverTheTraffic() {
    let start = ContinuousClock.now
    var monitor = ConsentMonitor(timing: .init(), now: start)
    monitor.transportChanged(to: .connected, now: start)
    monitor.observe(receivedCount: 10, now: start + .seconds(1))
    monitor.transportChanged(to: .failed, now: start + .seconds(1))
    #expect(monitor.state(now: start + .seconds(1)) == .failed)
}

@Test func failureBoundIsNeverBelowTheDisconnectBound() {
    let timing = IceAgent.ConsentTiming(disconnectedAfter: .seconds(3), failedAfter: .seconds(1))
    #expect(timing.failedAfter == .seconds(3))
    #expect(IceAgent.Configuration(role: .controlled, checkPacing: .milliseconds(1)).checkPacing == .milliseconds(5))
}

@Test func checksAfterASelectedPairStayConnected() {
    let start = ContinuousClock.now
    var monitor = ConsentMonitor(timing: .init(), now: start)
    monitor.transportChanged(to: .checking, now: start)
    #expect(monitor.state(now: start) == .checking)
    monitor.transportChanged(to: .completed, now: start)
    // libnice re-enters CONNECTING for candidates trickled in late: the pair still works.
    monitor.transportChanged(to: .checking, now: start + .milliseconds(10))
    #expect(monitor.state(now: start + .milliseconds(10)) == .connected)
    monitor.transportChanged(to: .completed, now: start + .milliseconds(20))
    #expect(monitor.state(now: start + .milliseconds(20)) == .completed)
    monitor.transportChanged(to: .failed, now: start + .milliseconds(30))
    #expect(monitor.state(now: start + .milliseconds(30)) == .failed)
}

/// An ICE restart of a silent connection is no proof of a path: it stays `disconnected` until
/// a datagram arrives or libnice reports the new pair up (it reported `connected` at once, and
/// a call session took that for a reconnection, again at every restart of a cut call).
@Test func aRestartOfASilentConnectionWaitsForProof() {
    let start = ContinuousClock.now
    var monitor = ConsentMonitor(timing: .init(disconnectedAfter: .seconds(5), failedAfter: .seconds(10)), now: start)
    monitor.transportChanged(to: .connected, now: start)
    #expect(monitor.state(now: start + .seconds(6)) == .disconnected)
    monitor.restarted(now: start + .seconds(6))
    #expect(monitor.state(now: start + .seconds(6)) == .disconnected)
    #expect(monitor.state(now: start + .seconds(9)) == .disconnected)
    // Still nothing 10 s after the restart: failed.
    #expect(monitor.state(now: start + .seconds(16)) == .failed)
    // A datagram is the proof.
    monitor.observe(receivedCount: 1, now: start + .seconds(17))
    #expect(monitor.state(now: start + .seconds(17)) == .connected)
    // A restart while traffic flows changes nothing.
    monitor.restarted(now: start + .seconds(18))
    #expect(monitor.state(now: start + .seconds(18)) == .connected)
}
