import Foundation
import Logging
import SwiftRTCCore
import SwiftRTCSignaling
import Synchronization

// Delivery: to a connection here or through the shared state, replies and closes.
extension SignalingHub {
    /// Delivers to every recipient; those not connected are reported to the sender.
    func route(_ message: SignalingMessage, connection id: Int) async {
        var unavailable: [String] = []
        var full: [String] = []
        for recipient in message.to {
            switch await deliver(message, to: recipient) {
            case .delivered: break
            case .notConnected: unavailable.append(recipient)
            case .queueFull: full.append(recipient)
            }
        }
        if !unavailable.isEmpty {
            refuse(
                connection: id,
                code: .recipientUnavailable,
                reason: "not connected: \(unavailable.joined(separator: ", "))",
                replyTo: message.id
            )
        }
        if !full.isEmpty {
            refuse(
                connection: id,
                code: .recipientUnavailable,
                reason: "not reading its messages: \(full.joined(separator: ", "))",
                replyTo: message.id
            )
        }
    }

    enum Delivery { case delivered, notConnected, queueFull }

    /// Delivers to `user`'s connection here, or through the shared state to the instance that
    /// holds it.
    func deliver(_ message: SignalingMessage, to user: String) async -> Delivery {
        let text = String(decoding: message.jsonData(), as: UTF8.self)
        if connectionByUser[user] != nil { return deliverHere(text, to: user) }
        guard state.isShared else { return .notConnected }
        do {
            guard let presence = try await state.locate(user) else { return .notConnected }
            state.send(text, to: user, at: presence)
            metrics.routedAcross.increment()
            return .delivered
        } catch {
            logger.error("signaling: \(error)")
            return .notConnected
        }
    }

    func deliverHere(_ text: String, to user: String) -> Delivery {
        guard let id = connectionByUser[user], let connection = connections[id] else { return .notConnected }
        guard enqueue(text, on: connection) else { return .queueFull }
        metrics.routedLocally.increment()
        return .delivered
    }

    /// Queues `text` for the connection if its send queue has room for it.
    func enqueue(_ text: String, on connection: Connection) -> Bool {
        let bytes = text.utf8.count
        guard !connection.closing, connection.queue.reserve(bytes) else { return false }
        guard case .enqueued = connection.outbound.yield(.text(text)) else {
            connection.queue.release(bytes)
            return false
        }
        return true
    }

    /// What another instance sent this one: a message for a user connected here, or the news
    /// that a user connected here logged in elsewhere.
    func delivered(_ delivery: ClusterDelivery) {
        switch delivery {
        case let .message(user, text):
            metrics.receivedFromInstances.increment()
            if case .delivered = deliverHere(text, to: user) { return }
            metrics.deliveriesLost.increment()
        case let .replaced(user, connectionID):
            guard connectionByUser[user] == connectionID else { return }
            refuse(
                connection: connectionID,
                code: .conflict,
                reason: "\(user) connected again: this connection is replaced",
                replyTo: nil
            )
            close(connectionID, code: .policyViolation, reason: "replaced by a newer connection")
            connectionByUser[user] = nil
            connections[connectionID]?.user = nil
        case .credentialsChanged:
            break
        }
    }

    func reply(to id: Int, _ body: SignalingBody) {
        // A connection that does not read its replies loses them (its queue is bounded).
        guard let connection = connections[id] else { return }
        _ = enqueue(String(decoding: SignalingMessage(body: body).jsonData(), as: UTF8.self), on: connection)
    }

    /// Closes the connection after what is queued for it; one that does not take the close
    /// is cut off (``SignalingConnection/closeGrace``).
    func close(_ id: Int, code: CloseCode, reason: String) {
        guard let connection = connections[id], !connection.closing else { return }
        connections[id]?.closing = true
        connection.outbound.yield(.close(code, reason))
        connection.closer.yield()
    }
}
