import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM, caught from the moment this is made, so that a run can end its call,
/// send `DELETE` and write its report before exiting.
final class TerminationSignals: @unchecked Sendable {
    // Immutable after init; the sources only need to stay alive.
    private let sources: [any DispatchSourceSignal]
    private let received: Received

    private final class Received: Sendable {
        let number = Atomic<Int32>(0)
    }

    init() {
        var sources: [any DispatchSourceSignal] = []
        let received = Received()
        self.received = received
        for number in [SIGINT, SIGTERM] {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { received.number.store(number, ordering: .relaxed) }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    deinit { for source in sources { source.cancel() } }

    /// The signal that arrived, if one did.
    var signal: Int32? {
        let number = received.number.load(ordering: .relaxed)
        return number == 0 ? nil : number
    }

    /// Returns once SIGINT or SIGTERM has arrived, or after `limit` (nil: no limit), or when
    /// the task is cancelled.
    func wait(upTo limit: Duration?) async {
        let deadline = limit.map { ContinuousClock.now + $0 }
        while signal == nil, !Task.isCancelled {
            if let deadline, ContinuousClock.now >= deadline { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// SIGHUP, caught from the moment this is made (its default action would end the process):
/// `serve` reads its users file again on each one (`systemctl reload`, `kill -HUP`).
final class HangUpSignals: @unchecked Sendable {
    // Immutable after init; the source only needs to stay alive.
    private let source: any DispatchSourceSignal
    /// One element per SIGHUP received (those that arrive during a reload are coalesced).
    let received: AsyncStream<Void>

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        received = stream
        Glibc.signal(SIGHUP, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler { continuation.yield() }
        source.resume()
    }

    deinit { source.cancel() }
}
