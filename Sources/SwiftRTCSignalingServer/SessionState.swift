import Foundation
import SwiftRTCCore
import SwiftRTCSignaling

/// Everything the server keeps about one call session, and the rules each message must pass:
/// who may send what (``ServerCallSession``) and what the call log will say
/// (`CallLogBuilder`). Pure state, `Codable`: a server that runs alone keeps it in memory,
/// servers sharing a PostgreSQL database keep it in a row that one of them at a time changes
/// (``SignalingState/withSession(_:_:)``), so every rule holds whichever instance a member is
/// connected to.
struct SessionState: Sendable, Hashable, Codable {
    var session: ServerCallSession
    /// Holds this one call (its end result, times and custom items).
    var log = CallLogBuilder()

    /// What became of a message.
    enum Outcome: Sendable, Equatable {
        /// Refused: the error to answer the sender with, and the limit it hit, if any.
        case refused(SignalingErrorCode, String, limit: LimitCounters.Kind? = nil)
        /// A new session: the call log gets its row, then the message is routed.
        case created
        /// Passed: route the message. `record`: the call it ended (store it first);
        /// `firstAnswer`: the call's first answer (the call log's row gets it).
        case routed(record: CallRecord?, firstAnswer: Date?)
    }

    /// A `call` from `user` on session `id` (nil: no such session yet). `openCalls`: the calls
    /// `user` already has open as initiator, checked against `maxOpenCalls` for a new session.
    static func call(
        _ message: SignalingMessage,
        _ call: SignalingBody.Call,
        from user: String,
        into state: inout SessionState?,
        openCalls: Int,
        maxOpenCalls: Int,
        at now: Date
    ) -> Outcome {
        guard let sessionID = message.session else { return .refused(.malformed, "a call needs a session id") }
        if let existing = state?.session {
            guard existing.initiator == user else {
                return .refused(.conflict, "session \(sessionID) belongs to another call")
            }
            guard existing.opponents == call.opponents else {
                return .refused(.conflict, "the opponents of session \(sessionID) cannot change")
            }
            guard !existing.isEnded else { return .refused(.conflict, "session \(sessionID) has ended") }
            // A repeated call (the initiator re-sends until answered): routed again.
            return .routed(record: nil, firstAnswer: nil)
        }
        guard openCalls < maxOpenCalls else {
            return .refused(
                .conflict,
                "\(openCalls) calls of yours are still open (at most \(maxOpenCalls))",
                limit: .callsOverOpenLimit
            )
        }
        var created = SessionState(
            session: ServerCallSession(id: sessionID, initiator: user, opponents: call.opponents, started: now)
        )
        _ = created.log.observe(message, at: now)
        state = created
        return .created
    }

    /// Any other session message from `user` (`from` set to it).
    mutating func apply(_ message: SignalingMessage, from user: String, at now: Date) -> Outcome {
        let sessionID = session.id
        guard session.isMember(user) else { return .refused(.forbidden, "you are not invited to session \(sessionID)") }
        guard session.isActive(user) else { return .refused(.forbidden, "you are no longer in session \(sessionID)") }
        if let stranger = message.to.first(where: { !session.isMember($0) }) {
            return .refused(.forbidden, "\(stranger) is not in session \(sessionID)")
        }
        switch message.body {
        case .accept:
            guard user != session.initiator else {
                return .refused(.forbidden, "the initiator does not accept its own call")
            }
            guard !session.isEnded else { return .refused(.conflict, "session \(sessionID) has ended") }
            session.accept(by: user)
        case .reject:
            guard session.states[user] == .pending else {
                return .refused(
                    .forbidden,
                    user == session.initiator
                        ? "the initiator hangs up, it does not reject"
                        : "only a pending call can be rejected; hang up instead"
                )
            }
            session.reject(by: user)
        case let .hangUp(hangUp):
            session.hangUp(by: user, to: message.to, result: hangUp.result)
        case let .customItems(change):
            guard session.applyCustomItems(change) else {
                return .refused(
                    .tooLarge,
                    "custom items over the limit (\(SignalingLimits.maxDictionaryEntries) entries, "
                        + "\(ServerCallSession.maxCustomItemsBytes) bytes)"
                )
            }
        case .offer, .answer, .candidate, .mediaSettings, .recording, .call, .hello, .welcome, .callLogQuery, .callLog,
            .error:
            break
        }
        let record = observe(message, at: now)
        var firstAnswer: Date?
        if case .accept = message.body, !session.answerLogged, let answered = log.answered(session: sessionID) {
            session.answerLogged = true
            firstAnswer = answered
        }
        return .routed(record: record, firstAnswer: firstAnswer)
    }

    /// `user` leaves on the server's own account (connection lost, ring timeout, shutdown):
    /// the session and the call log take `notice` (a `hangUp` from `user`) as if the user had
    /// sent it; returns the record of the call it ended, if it ended it.
    mutating func leave(_ user: String, notice: SignalingMessage, at now: Date) -> CallRecord? {
        guard case let .hangUp(hangUp) = notice.body else { return nil }
        session.hangUp(by: user, to: notice.to, result: hangUp.result)
        return observe(notice, at: now)
    }

    /// `user`'s connection is gone for good: calls the log still holds open with them (e.g.
    /// left already) settle too.
    mutating func disconnected(_ user: String, at now: Date) -> CallRecord? {
        let record = log.disconnected(user: user, at: now).first
        if record != nil { session.ended = now }
        return record
    }

    /// Whether an unanswered call has rung for longer than `ringTimeout`.
    func rangOut(at now: Date, ringTimeout: Duration) -> Bool {
        !session.isEnded && !session.answered && !session.pendingOpponents.isEmpty
            && now.timeIntervalSince(session.started) > ringTimeout.seconds
    }

    private mutating func observe(_ message: SignalingMessage, at now: Date) -> CallRecord? {
        let record = log.observe(message, at: now)
        if record != nil { session.ended = now }
        return record
    }
}
