import Foundation
import Logging
import SwiftRTCCore
import SwiftRTCSignaling
import Synchronization

// Messages from a connection: refused, or handed to the session rules or the call log.
extension SignalingHub {
    /// Answers a message that was refused.
    func refuse(connection id: Int, code: SignalingErrorCode, reason: String, replyTo: String?) {
        reply(to: id, .error(.init(code: code, reason: reason, replyTo: replyTo)))
    }

    /// Answers a message the connection refused before the hub saw it (unparsable, too large,
    /// binary, over the rate). A connection not yet authenticated may only say hello: it is
    /// closed (1008) after the answer.
    func refuseUnread(connection id: Int, code: SignalingErrorCode, reason: String, replyTo: String?) {
        refuse(connection: id, code: code, reason: reason, replyTo: replyTo)
        if let connection = connections[id], connection.user == nil {
            close(id, code: .policyViolation, reason: "send hello first")
        }
    }

    /// Handles one parsed message from connection `id`.
    func receive(_ message: SignalingMessage, connection id: Int) async {
        guard let connection = connections[id], !connection.closing else { return }
        guard let user = connection.user else {
            refuse(
                connection: id,
                code: .unauthenticated,
                reason: "send hello with your token first",
                replyTo: message.id
            )
            close(id, code: .policyViolation, reason: "send hello first")
            return
        }
        if let from = message.from, from != user {
            refuse(
                connection: id,
                code: .forbidden,
                reason: "this connection is authenticated as \(user), not \(from)",
                replyTo: message.id
            )
            return
        }
        var message = message
        message.from = user
        switch message.body {
        case .hello:
            // Hellos go to ``hello(user:messageID:connection:)``; here only a repeated one can arrive.
            refuse(connection: id, code: .malformed, reason: "already authenticated as \(user)", replyTo: message.id)
        case .welcome, .callLog, .error:
            refuse(
                connection: id,
                code: .malformed,
                reason: "\(message.type.rawValue) is sent by the server, not to it",
                replyTo: message.id
            )
        case let .callLogQuery(query):
            await answer(query, from: user, messageID: message.id, connection: id)
        case .call, .accept, .reject, .hangUp, .offer, .answer, .candidate, .mediaSettings, .customItems, .recording:
            await handleSessionMessage(message, from: user, connection: id)
        }
    }
}
