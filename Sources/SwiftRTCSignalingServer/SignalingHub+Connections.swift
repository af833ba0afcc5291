import Foundation
import Logging
import SwiftRTCCore
import SwiftRTCSignaling
import Synchronization

// Connections: admission, authentication, and leaving for good.
extension SignalingHub {
    /// Registers a new (not yet authenticated) connection from `address`, unless the server
    /// is stopping or the connection limits (in total, per address) are reached.
    func open(
        outbound: AsyncStream<Outbound>.Continuation,
        queue: SendQueue,
        closer: AsyncStream<Void>.Continuation,
        address: String
    ) -> Admission {
        guard !stopping else { return .stopping }
        guard connections.count < configuration.maxConnections else {
            limits.hit(
                .connectionsOverTotalLimit,
                "a connection from \(address): \(connections.count) open, at most \(configuration.maxConnections)"
            )
            return .refused(
                "the server has \(configuration.maxConnections) connections open, its limit: try again later"
            )
        }
        let fromAddress = connectionsByAddress[address, default: 0]
        guard fromAddress < configuration.maxConnectionsPerAddress else {
            limits.hit(
                .connectionsOverAddressLimit,
                "a connection from \(address): \(fromAddress) open from there, at most \(configuration.maxConnectionsPerAddress)"
            )
            return .refused(
                "\(fromAddress) connections are open from your address, at most \(configuration.maxConnectionsPerAddress)"
            )
        }
        let id = nextConnectionID
        nextConnectionID += 1
        connections[id] = Connection(outbound: outbound, queue: queue, closer: closer, opened: .now, address: address)
        metrics.connections.record(connections.count)
        connectionsByAddress[address] = fromAddress + 1
        return .opened(id)
    }

    /// The connection closed. Its user is away from now: unless they log in again (here or on
    /// another instance) within ``SignalingServer/Configuration/reconnectGrace``, they leave
    /// the sessions they are in (as `connection_lost`, see ``sweep()``). A connection replaced
    /// by a newer one of the same user changes nothing.
    func closed(_ id: Int) async {
        guard let connection = connections.removeValue(forKey: id) else { return }
        metrics.connections.record(connections.count)
        connection.outbound.finish()
        if let count = connectionsByAddress[connection.address], count > 1 {
            connectionsByAddress[connection.address] = count - 1
        } else {
            connectionsByAddress[connection.address] = nil
        }
        guard let user = connection.user, connectionByUser[user] == id else { return }
        connectionByUser[user] = nil
        logger.info("signaling: disconnected", metadata: ["user": "\(user)"])
        do {
            try await state.release(user, connection: id)
        } catch {
            logger.error("signaling: \(error)")
        }
    }

    /// `user` is gone for good (away past the grace, or the server stops): they leave every
    /// session they are still in, as a hang-up with result `connection_lost` at `time`, which
    /// the others still in it are sent.
    func leaveAll(_ user: String, reason: String, at time: Date) async {
        let sessionIDs: [String]
        do {
            sessionIDs = try await state.openSessions(of: user)
        } catch {
            logger.error("signaling: \(error)")
            return
        }
        for sessionID in sessionIDs {
            let hangUp = SignalingBody.hangUp(.init(userInfo: ["reason": reason], result: .connectionLost))
            let outcome: (notice: SignalingMessage?, record: CallRecord?)
            do {
                outcome = try await state.withSession(sessionID) { stored in
                    guard var session = stored else { return (nil, nil) }
                    var notice: SignalingMessage?
                    var record: CallRecord?
                    if !session.session.isEnded, session.session.isActive(user) {
                        let others = session.session.participants.filter { $0 != user && session.session.isActive($0) }
                        let message = SignalingMessage(from: user, to: others, session: sessionID, body: hangUp)
                        record = session.leave(user, notice: message, at: time)
                        notice = message
                    }
                    if record == nil, !session.session.isEnded { record = session.disconnected(user, at: time) }
                    stored = session
                    return (notice, record)
                }
            } catch {
                logger.error("signaling: \(error)")
                continue
            }
            if let record = outcome.record { await store(record) }
            if let notice = outcome.notice {
                for recipient in notice.to { _ = await deliver(notice, to: recipient) }
            }
        }
    }

    /// Users with an authenticated connection, sorted.
    var connectedUsers: [String] { connectionByUser.keys.sorted() }

    /// A hello that found every password check busy: refused (429) and closed, counted.
    func refusePasswordCheck(connection id: Int, messageID: String?) {
        guard let connection = connections[id], !connection.closing else { return }
        let limit = configuration.maxConcurrentPasswordChecks
        limits.hit(
            .passwordChecksOverLimit,
            "a hello from \(connection.address): \(limit) password checks running, at most \(limit)"
        )
        refuse(
            connection: id,
            code: .tooManyMessages,
            reason: "\(limit) logins are being checked, the server's limit: try again later",
            replyTo: messageID
        )
        close(id, code: .policyViolation, reason: "too many logins at once")
    }

    /// A password login the ``LoginThrottle`` refused without checking it: `429` saying how
    /// long to wait, counted, and closed.
    func refuseThrottledLogin(connection id: Int, messageID: String?, wait: Duration) {
        guard let connection = connections[id], !connection.closing else { return }
        let seconds = max(1, Int(wait.seconds.rounded(.up)))
        limits.hit(.loginsThrottled, "a login from \(connection.address): too many failed logins, next in \(seconds) s")
        refuse(
            connection: id,
            code: .tooManyMessages,
            reason: "too many failed logins: try again in \(seconds) s",
            replyTo: messageID
        )
        close(id, code: .policyViolation, reason: "too many failed logins")
    }

    /// Whether connection `id` still needs a hello (false: already authenticated, or closing).
    func awaitsHello(connection id: Int) -> Bool {
        guard let connection = connections[id] else { return false }
        return connection.user == nil && !connection.closing
    }

    /// The user a `hello` authenticated (checked by the connection, off the actor, against
    /// `checkedWith`), or nil for a bad token. Credentials replaced meanwhile must still let
    /// the user in as those did (else the token counts as bad).
    func hello(user: String?, messageID: String?, connection id: Int, checkedWith: CredentialsVersion? = nil) async {
        guard let connection = connections[id], !connection.closing else { return }
        var user = user
        if let name = user, let checkedWith {
            let current = currentCredentials.withLock { $0 }
            if current.generation != checkedWith.generation,
                current.credentials.secrets(of: name) != checkedWith.credentials.secrets(of: name)
            {
                user = nil
            }
        }
        if let user = connection.user {
            refuse(connection: id, code: .malformed, reason: "already authenticated as \(user)", replyTo: messageID)
            return
        }
        guard let user else {
            metrics.loginsRefused.increment()
            logger.info("signaling: connection \(id) refused: bad token")
            refuse(connection: id, code: .unauthenticated, reason: "unknown token", replyTo: messageID)
            close(id, code: .policyViolation, reason: "authentication failed")
            return
        }
        if let previous = connectionByUser[user], previous != id {
            refuse(
                connection: previous,
                code: .conflict,
                reason: "\(user) connected again: this connection is replaced",
                replyTo: nil
            )
            close(previous, code: .policyViolation, reason: "replaced by a newer connection")
            connections[previous]?.user = nil
        }
        connections[id]?.user = user
        connectionByUser[user] = id
        // Where the user was connected before, on another instance, that connection goes.
        do {
            if let elsewhere = try await state.claim(user, connection: id) { state.replace(user, at: elsewhere) }
        } catch {
            logger.error("signaling: \(error)")
        }
        // The connection may have closed while the claim was written.
        guard connectionByUser[user] == id, connections[id] != nil else { return }
        metrics.loginsOK.increment()
        logger.info("signaling: connected", metadata: ["user": "\(user)"])
        reply(to: id, .welcome(.init(user: user)))
    }

    /// Whether new connections are taken (false once ``shutdown()`` began): `/readyz` says so,
    /// so that a load balancer sends no one here while the instance drains.
    var isTakingConnections: Bool { !stopping }

    /// How many connections are still open.
    var connectionCount: Int { connections.count }
}
