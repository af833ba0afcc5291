import Foundation
import Synchronization

/// Ends a test run that hangs, with the stacks of all its threads, instead of letting it
/// sit until CI's own limit.
///
/// A deadlock in the stack (or in a test) stops the run without a word: the `.realTime` slot
/// stays taken, or the cooperative pool's threads are all blocked. The watchdog is a thread of
/// its own, outside the pool. When one `.realTime` test has held the slot longer than
/// `testLimit`, or the run has gone on longer than `runLimit`, it prints what it knows, has
/// gdb print every thread's stack (to standard error, where CI's log has it), and ends the
/// process with a failure.
enum Watchdog {
    static let testLimit: Duration = .seconds(8 * 60)
    static let runLimit: Duration = .seconds(45 * 60)

    private struct State {
        var started = false
        var holder: (name: String, since: ContinuousClock.Instant)?
    }

    private static let state = Mutex(State())
    private static let runStart = ContinuousClock.now

    /// Starts the watchdog (once) and records that `test` now holds the real-time slot.
    static func holding(_ test: String) {
        let start = state.withLock { state -> Bool in
            state.holder = (test, .now)
            defer { state.started = true }
            return !state.started
        }
        if start { Thread.detachNewThread { watch() } }
    }

    /// Records that the slot is free.
    static func released() {
        state.withLock { $0.holder = nil }
    }

    private static func watch() {
        while true {
            Thread.sleep(forTimeInterval: 10)
            let now = ContinuousClock.now
            let holder = state.withLock { $0.holder }
            if let holder, now - holder.since > testLimit {
                fail("test \(holder.name) has held the real-time slot for \(now - holder.since) (limit \(testLimit))")
            }
            if now - runStart > runLimit {
                fail(
                    "the test run has gone on for \(now - runStart) (limit \(runLimit)); real-time slot: \(holder?.name ?? "free")"
                )
            }
        }
    }

    private static func fail(_ why: String) -> Never {
        FileHandle.standardError.write(Data("\n[watchdog] \(why): the run hangs. Stacks of all threads follow.\n".utf8))
        let gdb = Process()
        gdb.executableURL = URL(fileURLWithPath: "/usr/bin/gdb")
        gdb.arguments = [
            "-q", "-p", "\(getpid())", "-batch", "-ex", "set complaints 0", "-ex", "set pagination off", "-ex",
            "thread apply all bt 30",
        ]
        gdb.standardOutput = FileHandle.standardError
        gdb.standardError = FileHandle.standardError
        if (try? gdb.run()) != nil {
            gdb.waitUntilExit()
        } else {
            FileHandle.standardError.write(Data("[watchdog] gdb is not installed: no stacks.\n".utf8))
        }
        FileHandle.standardError.write(Data("[watchdog] ending the test run with a failure.\n".utf8))
        _exit(70)
    }
}
