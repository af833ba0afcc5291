import CNice
import SwiftRTCCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A few threads, each running a GLib main loop on its own `GMainContext`, that serve all ICE
/// agents of the process (DESIGN.md, "Two planes"). An agent is bound to one thread, chosen
/// round-robin, for its whole life: libnice runs its timers and socket sources there and
/// calls the receive path there.
///
/// ``shared`` has one thread per core but one (at least one) and lives as long as the process.
/// A private pool (for tests, or a process that wants its transport threads separate) ends
/// with ``shutdown()``.
public final class TransportThreadPool: Sendable {
    /// The process-wide pool, started on first use: one thread per core but one, which is left
    /// to the threads that send (the tasks that push media). Each loop iteration of a thread
    /// walks all its agents' sockets, so fewer threads, each finding more sockets ready per
    /// iteration, cost less. On 2 cores, 1000 calls took 5% less CPU and kept real time with
    /// one transport thread, not with two (Benchmarks/README.md).
    public static let shared = TransportThreadPool(threadCount: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) - 1)

    let threads: [TransportThread]
    private let nextIndex = Atomic<Int>(0)

    /// Starts `threadCount` transport threads (at least one).
    public init(threadCount: Int, name: String = "swiftrtc-ice") {
        threads = (0..<max(1, threadCount)).map { TransportThread(name: "\(name)-\($0)") }
    }

    /// How many transport threads run.
    public var threadCount: Int { threads.count }

    /// The thread for the next agent (round-robin).
    func nextThread() -> TransportThread {
        let index = nextIndex.add(1, ordering: .relaxed).oldValue
        return threads[index % threads.count]
    }

    /// Stops the loops and joins the threads. Close the agents on this pool first; an agent
    /// still open on a stopped pool no longer runs its timers.
    public func shutdown() {
        for thread in threads { thread.stop() }
    }
}

/// One transport thread: a `GMainContext` and the `GMainLoop` that runs it.
final class TransportThread: @unchecked Sendable {
    /// The thread's context (`GMainContext *`); libnice agents and their sources attach here.
    let context: OpaquePointer
    private let loop: OpaquePointer
    /// The running thread (`GThread *`), until ``stop()``.
    private let handle = Mutex<ThreadHandle?>(nil)

    init(name: String) {
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
        // Before each wait for sockets: the work put off during the last turn's burst.
        let burstEnd = g_source_new(Self.burstEndFunctions, guint(MemoryLayout<GSource>.size))
        g_source_set_priority(burstEnd, G_PRIORITY_HIGH)
        g_source_attach(burstEnd, context)
        g_source_unref(burstEnd)
        let start = Unmanaged.passRetained(StartBox(context: context, loop: loop)).toOpaque()
        // g_thread_new names the thread (visible in top -H, gdb) and aborts if it cannot start one.
        let thread = g_thread_new(
            String(name.utf8.prefix(15)),
            { argument in
                let box = Unmanaged<StartBox>.fromOpaque(argument!).takeRetainedValue()
                g_main_context_push_thread_default(box.context)
                EndOfBurst.run { g_main_loop_run(box.loop) }
                g_main_context_pop_thread_default(box.context)
                return nil
            },
            start
        )
        handle.withLock { $0 = thread.map(ThreadHandle.init) }
    }

    /// A source that is never ready: its `prepare`, which GLib calls at the start of every
    /// turn of the loop (after the last turn's sources were dispatched, before it polls),
    /// ends the burst (``EndOfBurst/finishBurst()``). Allocated once: GLib keeps the pointer.
    nonisolated(unsafe) private static let burstEndFunctions: UnsafeMutablePointer<GSourceFuncs> = {
        let functions = UnsafeMutablePointer<GSourceFuncs>.allocate(capacity: 1)
        functions.initialize(
            to: GSourceFuncs(
                prepare: { _, timeout in
                    EndOfBurst.finishBurst()
                    timeout?.pointee = -1
                    return 0
                },
                check: { _ in 0 },
                dispatch: { _, _, _ in 1 },
                finalize: nil,
                closure_callback: nil,
                closure_marshal: nil
            )
        )
        return functions
    }()

    /// Runs `body` on this thread, soon (or now, if called on it).
    func invoke(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(InvokeBox(body)).toOpaque()
        g_main_context_invoke_full(
            context,
            G_PRIORITY_DEFAULT,
            { data in
                Unmanaged<InvokeBox>.fromOpaque(data!).takeUnretainedValue().body()
                return 0  // G_SOURCE_REMOVE
            },
            box,
            { data in
                Unmanaged<InvokeBox>.fromOpaque(data!).release()
            }
        )
    }

    /// Quits the loop and waits for the thread to end. Idempotent.
    func stop() {
        guard
            let thread = handle.withLock({ value -> ThreadHandle? in
                defer { value = nil }
                return value
            })
        else { return }
        g_main_loop_quit(loop)
        _ = g_thread_join(thread.pointer)
    }

    deinit {
        stop()
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }
}

private final class StartBox {
    let context: OpaquePointer
    let loop: OpaquePointer
    init(context: OpaquePointer, loop: OpaquePointer) {
        self.context = context
        self.loop = loop
    }
}

private final class InvokeBox {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

private struct ThreadHandle: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GThread>
}
