import Testing

/// The `.realTime` trait: the test makes real-time calls (media paced by the clock, ICE and
/// DTLS with deadlines, encoders at frame rate) or other work that needs the CPU to itself.
///
/// The whole package's tests run in parallel on two cores. Real-time calls that overlap with
/// each other and with CPU-heavy tests miss their deadlines (a DTLS handshake not done within
/// 30 s, frames late), so such tests take turns: one at a time holds the slot, while the many
/// short tests go on beside it. The holder's own code runs on threads of its own
/// (`RealTimeExecutor`), not behind the short tests queued on the cooperative pool. A test
/// that holds the slot too long ends the run with the stacks of all threads (see `Watchdog`).
public struct RealTimeTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// Each test function takes the slot once, around all its cases; suites take nothing.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        !test.isSuite && testCase == nil ? self : nil
    }

    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        await RealTimeSlot.shared.acquire()
        Watchdog.holding(test.name)
        let start = ContinuousClock.now
        // The slot's holders one after the other are the test run's critical path: each says
        // how long it held it, so a run's log shows where its time went.
        func release() async {
            Watchdog.released()
            print("realTime slot: \(test.name) held it \(start.duration(to: .now))")
            await RealTimeSlot.shared.release()
        }
        do {
            try await withTaskExecutorPreference(RealTimeExecutor.shared) { try await function() }
        } catch {
            await release()
            throw error
        }
        await release()
    }
}

extension Trait where Self == RealTimeTrait {
    /// Runs the test (each test of a suite) while no other `.realTime` test runs.
    public static var realTime: Self { Self() }
}

/// The one slot `.realTime` tests take turns on, first come first served.
actor RealTimeSlot {
    static let shared = RealTimeSlot()
    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard taken else {
            taken = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { taken = false } else { waiting.removeFirst().resume() }
    }
}
