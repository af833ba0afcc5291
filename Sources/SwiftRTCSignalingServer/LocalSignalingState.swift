import Foundation
import Synchronization

/// ``SignalingState`` of a server that runs alone: sessions and who is away, in this process.
final class LocalSignalingState: SignalingState {
    private struct State {
        var sessions: [String: SessionState] = [:]
        var away: [String: Date] = [:]
    }

    private let state = Mutex(State())
    let instanceID = UUID().uuidString.lowercased()
    var isShared: Bool { false }

    func withSession<R: Sendable>(_ id: String, _ body: @Sendable (inout SessionState?) -> R) async throws -> R {
        state.withLock { state in
            var session = state.sessions[id]
            let result = body(&session)
            state.sessions[id] = session
            return result
        }
    }

    func openCalls(initiatedBy user: String) async throws -> Int {
        state.withLock { $0.sessions.values.count { $0.session.initiator == user && !$0.session.isEnded } }
    }

    func openSessions(of user: String) async throws -> [String] {
        state.withLock {
            $0.sessions.values.filter { !$0.session.isEnded && $0.session.isMember(user) }.map(\.session.id).sorted()
        }
    }

    func unansweredSessions(startedBefore date: Date) async throws -> [String] {
        state.withLock { state in
            state.sessions.values.filter { !$0.session.isEnded && !$0.session.answered && $0.session.started < date }
                .map(\.session.id)
        }
    }

    func forgetSessions(endedBefore date: Date) async throws {
        state.withLock { state in
            state.sessions = state.sessions.filter { _, session in session.session.ended.map { $0 >= date } ?? true }
        }
    }

    func claim(_ user: String, connection: Int) async throws -> UserPresence? {
        state.withLock { _ = $0.away.removeValue(forKey: user) }
        return nil
    }

    func release(_ user: String, connection: Int) async throws {
        state.withLock { $0.away[user] = Date() }
    }

    func locate(_ user: String) async throws -> UserPresence? { nil }

    func expireAway(before date: Date) async throws -> [(user: String, since: Date)] {
        state.withLock { state in
            let expired = state.away.filter { $0.value < date }
            for user in expired.keys { state.away[user] = nil }
            return expired.map { (user: $0.key, since: $0.value) }.sorted { $0.since < $1.since }
        }
    }

    func stillAway(_ users: [String]) async throws -> [String] {
        state.withLock { state in users.filter { state.away[$0] != nil } }
    }

    func takeAway(_ users: [String]) async throws -> [(user: String, since: Date)] {
        state.withLock { state in users.compactMap { user in state.away.removeValue(forKey: user).map { (user, $0) } } }
    }

    func send(_ text: String, to user: String, at presence: UserPresence) {}

    func replace(_ user: String, at presence: UserPresence) {}

    func run(deliver: @escaping @Sendable (ClusterDelivery) async -> Void) async throws {
        while !Task.isCancelled { try await Task.sleep(for: .seconds(3600)) }
    }

    func isReady() async -> Bool { true }
}
