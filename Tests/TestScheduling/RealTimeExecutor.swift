import Foundation

/// The threads a `.realTime` test's own code runs on: the test's body, its child tasks and the
/// actor calls it makes (task executor preference, SE-0417).
///
/// The cooperative pool serves its jobs in turn, whatever their priority. In the first minute
/// of a run, hundreds of short tests are queued on it, and a real-time test there waited
/// seconds for every wake-up: a 2 s recording took 42 s, and a recorder meant to be killed
/// 3 s in had written all 6 s (stop 33's CI). On these threads its wake-ups do not queue
/// behind other tests. Unstructured tasks the stack starts (a connection's loops) still run on
/// the pool.
///
/// Two threads, so that one test's two child tasks can wait on each other; a job that blocks
/// here holds up only the real-time test, whose turn it is.
final class RealTimeExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = RealTimeExecutor(threads: 2)

    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var next = 0

    private init(threads: Int) {
        for index in 0..<threads {
            let thread = Thread { [unowned self] in run() }
            thread.name = "realtime-test-\(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while next == jobs.count { condition.wait() }
            let job = jobs[next]
            next += 1
            if next == jobs.count || next >= 1024 {
                jobs.removeFirst(next)  // what has run, at most every 1024 jobs
                next = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
