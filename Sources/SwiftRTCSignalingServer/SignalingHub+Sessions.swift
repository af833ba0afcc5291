import Foundation
import Logging
import SwiftRTCCore
import SwiftRTCSignaling
import Synchronization

// Session messages: the rules of SessionState, then routing.
extension SignalingHub {
    /// The rules of ``SessionState`` (applied where the session is kept, one message at a time
    /// across instances), then routing to the recipients.
    func handleSessionMessage(_ message: SignalingMessage, from user: String, connection id: Int) async {
        guard let sessionID = message.session, (1...128).contains(sessionID.utf8.count) else {
            refuse(
                connection: id,
                code: .malformed,
                reason: "the session id must be 1 to 128 bytes",
                replyTo: message.id
            )
            return
        }
        if message.to.contains(user) {
            refuse(
                connection: id,
                code: .malformed,
                reason: "a message cannot be addressed to its sender",
                replyTo: message.id
            )
            return
        }
        let now = Date()
        guard let outcome = await apply(message, to: sessionID, from: user, connection: id, at: now) else { return }
        switch outcome {
        case let .refused(code, reason, limit):
            if let limit { limits.hit(limit, "a message of \(user) in session \(sessionID): \(reason)") }
            refuse(connection: id, code: code, reason: reason, replyTo: message.id)
            return
        case .created:
            guard case let .call(call) = message.body,
                await started(call, session: sessionID, by: user, messageID: message.id, connection: id, at: now)
            else { return }
        case let .routed(record, firstAnswer):
            // The record is stored before the recipients hear of the end, so that a query they
            // send on hearing it finds the call.
            if let record { await store(record) }
            // The first answer goes into the call's row too (a killed server's call keeps it).
            if let firstAnswer {
                do {
                    try await callLog.callAnswered(id: sessionID, at: firstAnswer)
                } catch {
                    logger.error("signaling: \(error)")
                }
            }
        }
        await route(message, connection: id)
    }

    /// `message` applied to its session where the session is kept (a `call` may create it);
    /// nil when it was refused here and the sender told (not the initiator, the session taken,
    /// the state unreadable).
    func apply(
        _ message: SignalingMessage,
        to sessionID: String,
        from user: String,
        connection id: Int,
        at now: Date
    ) async -> SessionState.Outcome? {
        do {
            guard case let .call(call) = message.body else {
                return try await state.withSession(sessionID) { stored in
                    guard stored != nil else {
                        return .refused(.forbidden, "you are not invited to session \(sessionID)")
                    }
                    return stored!.apply(message, from: user, at: now)
                }
            }
            guard call.initiator == user else {
                refuse(
                    connection: id,
                    code: .forbidden,
                    reason: "the initiator of a call you send must be you (\(user)), not \(call.initiator)",
                    replyTo: message.id
                )
                return nil
            }
            let open = try await state.openCalls(initiatedBy: user)
            let maxOpen = configuration.maxOpenCallsPerUser
            return try await state.withSession(sessionID) { stored in
                SessionState.call(
                    message,
                    call,
                    from: user,
                    into: &stored,
                    openCalls: open,
                    maxOpenCalls: maxOpen,
                    at: now
                )
            }
        } catch SignalingStateError.sessionTaken {
            refuse(
                connection: id,
                code: .conflict,
                reason: "session \(sessionID) belongs to another call",
                replyTo: message.id
            )
        } catch {
            logger.error("signaling: \(error)")
            refuse(
                connection: id,
                code: .internalError,
                reason: "the call session cannot be read or stored",
                replyTo: message.id
            )
        }
        return nil
    }

    /// A call that created its session: within its initiator's call budget and written to the
    /// call log, or refused and its session removed (false).
    func started(
        _ call: SignalingBody.Call,
        session sessionID: String,
        by user: String,
        messageID: String?,
        connection id: Int,
        at now: Date
    ) async -> Bool {
        guard callStarts.allow(user) else {
            try? await state.withSession(sessionID) { stored in stored = nil }
            let perMinute = callStarts.perMinute
            limits.hit(.callsOverRateLimit, "a call of \(user): over \(perMinute) calls a minute")
            refuse(
                connection: id,
                code: .tooManyMessages,
                reason: "you started \(perMinute) calls in the last minute (at most): try again later",
                replyTo: messageID
            )
            return false
        }
        do {
            try await callLog.callStarted(
                id: sessionID,
                caller: user,
                callees: call.opponents,
                conferenceType: call.conferenceType,
                at: now
            )
        } catch {
            // The call log keeps every call id for good: the session gives way.
            try? await state.withSession(sessionID) { stored in stored = nil }
            refuseUnlogged(call: sessionID, of: user, error, messageID: messageID, connection: id)
            return false
        }
        metrics.sessionsStarted.increment()
        callsSincePrune += 1
        if callsSincePrune >= configuration.callLogRetention.pruneInterval { await pruneCallLog() }
        logger.info(
            "signaling: call \(call.conferenceType.rawValue)",
            metadata: [
                "user": "\(user)", "opponents": "\(call.opponents.joined(separator: ","))", "session": "\(sessionID)",
            ]
        )
        return true
    }

    /// Tells the initiator why the call log did not take their call: its id was used before
    /// (409, counted), or the store failed (500).
    func refuseUnlogged(
        call sessionID: String,
        of user: String,
        _ error: CallLogError,
        messageID: String?,
        connection id: Int
    ) {
        if case .duplicateCall = error {
            limits.hit(.sessionIDsReused, "a call of \(user) with session id \(sessionID), used before")
            refuse(
                connection: id,
                code: .conflict,
                reason: "session id \(sessionID) was already used: a new call needs a new id",
                replyTo: messageID
            )
        } else {
            logger.error("signaling: \(error)")
            refuse(
                connection: id,
                code: .internalError,
                reason: "the call log cannot store the call",
                replyTo: messageID
            )
        }
    }
}
