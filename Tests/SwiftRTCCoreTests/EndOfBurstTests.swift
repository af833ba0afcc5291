import Foundation
import SwiftRTCCore
import Synchronization
import Testing

/// Work put off until the end of a transport thread's burst: done once per schedule, on that
/// thread, when the burst ends (or when the thread's loop ends); elsewhere not put off at all.
@Suite struct EndOfBurstTests {
    final class Recorder: EndOfBurst.Flushing {
        private let calls = Mutex<[UInt]>([])
        /// Scheduled again from its own flush, this many times.
        private let again = Atomic<Int>(0)

        init(againTimes: Int = 0) { again.store(againTimes, ordering: .relaxed) }

        func endOfBurst() {
            calls.withLock { $0.append(UInt(pthread_self())) }
            if again.wrappingSubtract(1, ordering: .relaxed).oldValue > 0 { _ = EndOfBurst.schedule(self) }
        }

        var threads: [UInt] { calls.withLock { $0 } }
    }

    /// Runs `body` on a thread of its own made a transport thread, and returns its result and
    /// that thread's id.
    static func onTransportThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> (T, UInt) {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var result: T?
                EndOfBurst.run { result = body() }
                continuation.resume(returning: (result!, UInt(pthread_self())))
            }
        }
    }

    @Test func elsewhereNothingIsPutOff() {
        let recorder = Recorder()
        #expect(EndOfBurst.schedule(recorder) == false)
        EndOfBurst.finishBurst()
        #expect(recorder.threads.isEmpty)
    }

    @Test func eachScheduleIsDoneOnceWhenTheBurstEnds() async {
        let first = Recorder(), second = Recorder()
        let ((scheduled, before, after), thread) = await Self.onTransportThread {
            let scheduled = [
                EndOfBurst.schedule(first), EndOfBurst.schedule(second), EndOfBurst.schedule(first),
            ]
            let before = first.threads.count + second.threads.count
            EndOfBurst.finishBurst()
            let after = (first.threads.count, second.threads.count)
            EndOfBurst.finishBurst()  // nothing left: nothing more done
            return (scheduled, before, after)
        }
        #expect(scheduled == [true, true, true])
        #expect(before == 0, "done before the burst ended")
        #expect(after.0 == 2 && after.1 == 1)
        #expect(first.threads == [thread, thread] && second.threads == [thread])
    }

    @Test func workPutOffByAFlushIsDoneInTheSameEnd() async {
        let recorder = Recorder(againTimes: 3)
        let (done, _) = await Self.onTransportThread {
            _ = EndOfBurst.schedule(recorder)
            EndOfBurst.finishBurst()
            return recorder.threads.count
        }
        #expect(done == 4)
    }

    @Test func whatIsLeftWhenTheLoopEndsIsDone() async {
        let recorder = Recorder()
        _ = await Self.onTransportThread { EndOfBurst.schedule(recorder) }
        #expect(recorder.threads.count == 1)
    }
}
