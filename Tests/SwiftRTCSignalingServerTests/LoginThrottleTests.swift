import Testing

@testable import SwiftRTCSignalingServer

/// The failed-login budgets (``LoginThrottle``), on a clock of their own.
@Suite struct LoginThrottleTests {
    let start = ContinuousClock.now
    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .seconds(seconds) }
    let throttle = LoginThrottle()

    /// How long the decision makes the login wait; nil when it is checked.
    func wait(_ decision: LoginThrottle.Decision) -> Duration? {
        if case let .wait(wait) = decision { wait } else { nil }
    }

    @Test func anAddressWaitsAfterThreeFailuresOneSecondDoublingUpToAMinute() {
        let address = "192.0.2.1"
        var now = 0.0
        // Three failures free, then 1, 2, 4, ... 60 s.
        for (failure, backOff) in [
            (1, 0.0), (2, 0), (3, 0), (4, 1), (5, 2), (6, 4), (7, 8), (8, 16), (9, 32), (10, 60), (11, 60),
        ] {
            #expect(
                throttle.admit(address: address, user: "erin", exists: true, now: at(now))
                    == .check(suspect: failure > 1)
            )
            throttle.failed(address: address, now: at(now))
            if backOff > 0 {
                let left = wait(
                    throttle.admit(address: address, user: "erin", exists: true, now: at(now + backOff - 0.01))
                )
                #expect(
                    left.map { $0 > .zero && $0 <= .milliseconds(11) } == true,
                    "failure \(failure): \(String(describing: left))"
                )
                #expect(
                    wait(throttle.admit(address: address, user: "erin", exists: true, now: at(now + backOff + 0.01)))
                        == nil
                )
            } else {
                #expect(wait(throttle.admit(address: address, user: "erin", exists: true, now: at(now + 0.01))) == nil)
            }
            now += backOff + 60  // past the wait, and refilling erin's budget
        }
    }

    @Test func oneAccountGetsAtMostSixtyChecksAMinuteAndACleanAddressStillGetsIn() {
        // 8 addresses guess erin's password as fast as they are let, for a minute.
        var checked = 0
        var time = 0.0
        while time < 60 {
            for index in 0..<8 {
                let address = "198.51.100.\(index)"
                if case .check = throttle.admit(address: address, user: "erin", exists: true, now: at(time)) {
                    checked += 1
                    throttle.failed(address: address, now: at(time))
                }
            }
            time += 0.05
        }
        #expect(checked <= 60, "\(checked) checks in a minute")
        // An address never seen failing is checked at once, as a clean one.
        #expect(
            throttle.admit(address: "203.0.113.7", user: "erin", exists: true, now: at(60)) == .check(suspect: false)
        )
        // Another account's budget is its own.
        #expect(
            throttle.admit(address: "203.0.113.8", user: "frank", exists: true, now: at(60)) == .check(suspect: false)
        )
        // The guessing addresses wait.
        #expect(wait(throttle.admit(address: "198.51.100.0", user: "frank", exists: true, now: at(60))) != nil)
    }

    @Test func madeUpUsersShareOneBudgetAndASuccessClearsTheAddress() {
        for index in 0..<20 {
            _ = throttle.admit(address: "192.0.2.\(index)", user: "nobody-\(index)", exists: false, now: at(0))
        }
        // Twenty made-up names drew on one clean budget of 3: the fourth and later were refused.
        #expect(
            wait(throttle.admit(address: "192.0.2.99", user: "another-made-up-name", exists: false, now: at(0))) != nil
        )
        throttle.failed(address: "192.0.2.50", now: at(0))
        throttle.succeeded(address: "192.0.2.50")
        #expect(throttle.admit(address: "192.0.2.50", user: "erin", exists: true, now: at(1)) == .check(suspect: false))
    }
}
