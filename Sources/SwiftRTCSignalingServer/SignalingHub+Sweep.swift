import Foundation
import Logging
import SwiftRTCCore
import SwiftRTCSignaling
import Synchronization

// Timers and shutdown: the periodic sweep, and handing users over when the server stops.
extension SignalingHub {
    /// How often a sweep prunes the call log (``CallLogRetention``), at least.
    static let pruneEvery: Duration = .seconds(60)

    /// Closes connections that never said hello, ends unanswered calls past the ring limit,
    /// makes users away past the reconnect grace leave their calls, forgets ended sessions after
    /// a while, and prunes the call log. With shared state, every instance sweeps: each session
    /// and each away user is taken by one of them. Once ``shutdown()`` began, the hand-over owns this
    /// instance's users, and the sweep does nothing.
    func sweep() async {
        guard !stopping else { return }
        sweeping = true
        defer {
            sweeping = false
            for waiter in sweepFinished { waiter.resume() }
            sweepFinished.removeAll()
        }
        let instant = ContinuousClock.now
        for (id, connection) in connections
        where connection.user == nil && !connection.closing && instant - connection.opened > configuration.helloTimeout
        {
            refuse(
                connection: id,
                code: .unauthenticated,
                reason: "no hello within \(configuration.helloTimeout)",
                replyTo: nil
            )
            close(id, code: .policyViolation, reason: "no hello")
        }
        let now = Date()
        do {
            for (user, since) in try await state.expireAway(
                before: now.addingTimeInterval(-configuration.reconnectGrace.seconds)
            ) {
                await leaveAll(user, reason: "signaling connection lost", at: since)
            }
            try await endUnansweredCalls(at: now)
            try await state.forgetSessions(
                endedBefore: now.addingTimeInterval(-configuration.endedSessionRetention.seconds)
            )
            if lastPrune.map({ instant - $0 >= Self.pruneEvery }) ?? true { await pruneCallLog() }
        } catch  where !Task.isCancelled {
            logger.error("signaling: \(error)")
        } catch {}
    }

    /// Ends the calls nobody answered within the ring limit, as if the initiator's answer
    /// timeout had run out for everyone still called: their record stored, the hang-up sent.
    func endUnansweredCalls(at now: Date) async throws {
        let ringTimeout = configuration.ringTimeout
        for sessionID in try await state.unansweredSessions(startedBefore: now.addingTimeInterval(-ringTimeout.seconds))
        {
            let ended = try await state.withSession(sessionID) {
                stored -> (notice: SignalingMessage, record: CallRecord?)? in
                guard var session = stored, session.rangOut(at: now, ringTimeout: ringTimeout) else { return nil }
                let notice = SignalingMessage(
                    from: session.session.initiator,
                    to: session.session.pendingOpponents,
                    session: sessionID,
                    body: .hangUp(.init(userInfo: ["reason": "nobody answered in time"], result: .noAnswer))
                )
                let record = session.leave(session.session.initiator, notice: notice, at: now)
                stored = session
                return (notice, record)
            }
            guard let ended else { continue }
            if let record = ended.record { await store(record) }
            for recipient in ended.notice.to { _ = await deliver(ended.notice, to: recipient) }
        }
    }

    /// Stops taking connections and closes every connection (code 1001, going away).
    ///
    /// A server that runs alone first ends the ongoing calls in the log (`connection_lost`:
    /// each participant still in them counts as hanging up so). An instance that shares its
    /// state hands its users over instead: they are away from now, to log in to another
    /// instance (the close tells their clients to move); it returns them, for
    /// ``finishHandOver(_:)``.
    func shutdown() async -> [String] {
        stopping = true
        // A sweep under way finishes first: a user it took from the state leaves their calls
        // (and their call records are written) before the server task group is cancelled.
        if sweeping { await withCheckedContinuation { sweepFinished.append($0) } }
        var handedOver: [String] = []
        if state.isShared {
            for (user, id) in connectionByUser.sorted(by: { $0.key < $1.key }) {
                do {
                    try await state.release(user, connection: id)
                    handedOver.append(user)
                } catch {
                    logger.error("signaling: \(error)")
                }
            }
        } else {
            for user in connectionByUser.keys.sorted() {
                await leaveAll(user, reason: "server shutting down", at: Date())
            }
        }
        for id in connections.keys { close(id, code: .goingAway, reason: "server shutting down") }
        return handedOver
    }

    /// How many of the users handed over at shutdown have not logged in elsewhere yet.
    func awaitingHandOver(_ users: [String]) async -> Int {
        (try? await state.stillAway(users).count) ?? 0
    }

    /// The users handed over at shutdown that did not log in elsewhere within the grace leave
    /// their calls now (`connection_lost`): their call records are finished before the
    /// instance stops.
    func finishHandOver(_ users: [String]) async {
        do {
            for (user, since) in try await state.takeAway(users) {
                await leaveAll(user, reason: "server shutting down", at: since)
            }
        } catch {
            logger.error("signaling: \(error)")
        }
    }
}
