import Foundation
import SwiftRTC
import Synchronization

/// The audio frames one bot decoded from one other member, counted by its audio sink on the
/// decoding task: one atomic add a frame, nothing allocated.
final class DecodedFrames: Sendable {
    let count = Atomic<Int>(0)
}

/// What the members of one `callbot load` call have seen so far (filled from each member's
/// session events), and the wait of the call's runner for it to change.
final class LoadCallState: Sendable {
    struct Member {
        /// The other members' user ids, and those the media connected with.
        var others: Set<String> = []
        var connected: Set<String> = []
        /// When the media connected with every other member.
        var connectedAt: ContinuousClock.Instant?
        /// How the member's session ended, once it has.
        var ended: CallEndResult?
        /// The audio decoded from each other member.
        var decoded: [String: DecodedFrames] = [:]
        var session: CallSession?
    }

    struct Snapshot {
        var members: [Member]
        /// The first thing that went wrong (while not tearing down).
        var failure: String?
        var allConnected: Bool { members.allSatisfy { $0.connectedAt != nil } }
        var anyEnded: Bool { members.contains { $0.ended != nil } }
        var allEnded: Bool { members.allSatisfy { $0.ended != nil || $0.session == nil } }
        var connections: (up: Int, of: Int) {
            (members.reduce(0) { $0 + $1.connected.count }, members.reduce(0) { $0 + $1.others.count })
        }
    }

    private struct State {
        var snapshot: Snapshot
        var tearingDown = false
        /// Set by ``wake()``, taken by ``wait(until:for:)``: a change between its check and its
        /// suspension is not lost.
        var changed = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state: Mutex<State>

    init(members: Int) {
        state = Mutex(State(snapshot: Snapshot(members: Array(repeating: Member(), count: members))))
    }

    var snapshot: Snapshot { state.withLock { $0.snapshot } }

    /// Sets who member `index` is in a call with.
    func setOthers(_ index: Int, _ others: Set<String>) {
        state.withLock { $0.snapshot.members[index].others = others }
    }

    /// Records the first failure (ignored once the call is being ended on purpose).
    func fail(_ reason: String) {
        state.withLock { state in
            if !state.tearingDown, state.snapshot.failure == nil { state.snapshot.failure = reason }
        }
        wake()
    }

    /// From now on the sessions' ends and failures are the runner's doing, not failures.
    func tearDown() { state.withLock { $0.tearingDown = true } }

    /// Follows member `index`'s session to its end: connections, decoded audio, failures.
    func follow(_ session: CallSession, events: AsyncStream<CallSessionEvent>, member index: Int) async {
        state.withLock { $0.snapshot.members[index].session = session }
        for await event in events {
            switch event {
            case .receivedRemoteAudioTrack(let user, let track):
                let counter = DecodedFrames()
                state.withLock { $0.snapshot.members[index].decoded[user] = counter }
                track.setAudioSink { _ in counter.count.add(1, ordering: .relaxed) }
            case .connected(let user):
                let now = ContinuousClock.now
                state.withLock { state in
                    var member = state.snapshot.members[index]
                    member.connected.insert(user)
                    if member.connectedAt == nil, member.others.isSubset(of: member.connected) {
                        member.connectedAt = now
                    }
                    state.snapshot.members[index] = member
                }
                wake()
            case .connectionFailed: fail("connection failed")
            case .rejected(_, _, let busy): fail(busy ? "rejected (busy)" : "rejected")
            case .didNotRespond: fail("no answer")
            case .ended(let record):
                let connected = state.withLock { state in
                    state.snapshot.members[index].ended = record.result
                    return state.snapshot.members[index].connectedAt != nil
                }
                fail(
                    connected
                        ? "ended early: \(record.result.rawValue)"
                        : "ended before connecting: \(record.result.rawValue)"
                )
                return
            default: break
            }
        }
    }

    /// Wakes ``wait(until:for:)``.
    func wake() {
        let waiter = state.withLock { state in
            state.changed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Suspends until `done` holds, `deadline` passes or the task is cancelled; whether `done` holds.
    func wait(until deadline: ContinuousClock.Instant, for done: (Snapshot) -> Bool) async -> Bool {
        let timer = Task { [weak self] in
            try? await Task.sleep(until: deadline)
            self?.wake()
        }
        defer { timer.cancel() }
        while true {
            if done(snapshot) { return true }
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let now = state.withLock { state -> Bool in
                        if state.changed {
                            state.changed = false
                            return true
                        }
                        state.waiter = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                wake()
            }
            state.withLock { $0.changed = false }
        }
    }
}
