import Synchronization

/// Runs `operation` for at most `timeout`: its result, or nil once the time is up (the
/// operation is then cancelled, and waited for). Errors of the operation are rethrown.
public func withTimeout<T: Sendable>(
    _ timeout: Duration,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
}

/// Runs `body` until `deadline`: its result, or nil once the deadline passes first or the
/// calling task is cancelled. Then `body` is cancelled and left to end on its own, never
/// waited for: what it waits on (a task that does not check for cancellation, a peer that
/// never answers) may take longer, where a task group would wait for it.
public func withDeadline<T: Sendable>(
    _ deadline: ContinuousClock.Instant,
    _ body: @escaping @Sendable () async -> T
) async -> T? {
    let first = Mutex<CheckedContinuation<T?, Never>?>(nil)
    let resume: @Sendable (T?) -> Void = { value in first.withLock { $0.take() }?.resume(returning: value) }
    let work = Mutex<Task<Void, Never>?>(nil)
    return await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
            first.withLock { $0 = continuation }
            let task = Task { resume(await body()) }
            work.withLock { $0 = task }
            Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                resume(nil)
                task.cancel()
            }
            if Task.isCancelled {
                resume(nil)
                task.cancel()
            }
        }
    } onCancel: {
        resume(nil)
        work.withLock { $0 }?.cancel()
    }
}
