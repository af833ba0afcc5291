import Foundation
import Logging
import SwiftRTCCore
import SwiftRTCSignaling

/// The signaling server's state: the connections and who they are authenticated as, the call
/// sessions, and the rules that route or refuse each message (see ``SignalingServer``).
///
/// The connection tasks parse messages concurrently; everything that reads or changes shared
/// state runs here, one message at a time.
actor SignalingHub {
    /// What a connection's writer sends next.
    enum Outbound: Sendable {
        case text(String)
        case close(CloseCode, String)
    }

    /// The WebSocket close codes the server uses (RFC 6455 §7.4.1).
    enum CloseCode: Sendable {
        /// 1001: the server is shutting down.
        case goingAway
        /// 1008: authentication failed, no hello in time, or replaced by a newer connection.
        case policyViolation
    }

    /// Whether a new connection may stay.
    enum Admission: Sendable {
        /// Registered under this id.
        case opened(Int)
        /// Over a connection limit: the error reply to send before closing (1008).
        case refused(String)
        /// The server is stopping: close (1001).
        case stopping
    }

    private struct Connection {
        let outbound: AsyncStream<Outbound>.Continuation
        let opened: ContinuousClock.Instant
        /// ``ClientAddress/key(forIP:)`` of the client.
        let address: String
        var user: String?
        /// A close was queued: nothing more is expected of it.
        var closing = false
    }

    /// The largest `callLog` answer, in bytes of JSON.
    static let maxCallLogReplyBytes = 512 * 1024

    private let configuration: SignalingServer.Configuration
    let credentials: SignalingCredentials
    let callLog: CallLogStore
    /// What each limit refused (read by the connection tasks too).
    nonisolated let limits: LimitCounters
    /// Password checks running (taken by the connection tasks, off the actor).
    nonisolated let passwordChecks: PasswordCheckGate
    private let logger = SwiftRTCLogging.logger("signaling")
    private var connections: [Int: Connection] = [:]
    private var connectionsByAddress: [String: Int] = [:]
    private var connectionByUser: [String: Int] = [:]
    private var sessions: [String: ServerCallSession] = [:]
    /// The end-result rules of the protocol (SignalingProtocol.md), fed every routed message.
    private var records = CallLogBuilder()
    private var nextConnectionID = 1
    private var stopping = false

    init(configuration: SignalingServer.Configuration, credentials: SignalingCredentials, callLog: CallLogStore) {
        self.configuration = configuration
        self.credentials = credentials
        self.callLog = callLog
        limits = LimitCounters(logger: logger)
        passwordChecks = PasswordCheckGate(limit: configuration.maxConcurrentPasswordChecks)
    }

    // MARK: - Connections

    /// Registers a new (not yet authenticated) connection from `address`, unless the server
    /// is stopping or the connection limits (in total, per address) are reached.
    func open(outbound: AsyncStream<Outbound>.Continuation, address: String) -> Admission {
        guard !stopping else { return .stopping }
        guard connections.count < configuration.maxConnections else {
            limits.hit(.connectionsOverTotalLimit, "a connection from \(address): \(connections.count) open, at most \(configuration.maxConnections)")
            return .refused("the server has \(configuration.maxConnections) connections open, its limit: try again later")
        }
        let fromAddress = connectionsByAddress[address, default: 0]
        guard fromAddress < configuration.maxConnectionsPerAddress else {
            limits.hit(.connectionsOverAddressLimit,
                       "a connection from \(address): \(fromAddress) open from there, at most \(configuration.maxConnectionsPerAddress)")
            return .refused("\(fromAddress) connections are open from your address, at most \(configuration.maxConnectionsPerAddress)")
        }
        let id = nextConnectionID
        nextConnectionID += 1
        connections[id] = Connection(outbound: outbound, opened: .now, address: address)
        connectionsByAddress[address] = fromAddress + 1
        return .opened(id)
    }

    /// The connection closed: its user leaves the sessions it is in (as `connection_lost`),
    /// unless a newer connection of the same user took over.
    func closed(_ id: Int) async {
        guard let connection = connections.removeValue(forKey: id) else { return }
        connection.outbound.finish()
        if let count = connectionsByAddress[connection.address], count > 1 {
            connectionsByAddress[connection.address] = count - 1
        } else {
            connectionsByAddress[connection.address] = nil
        }
        guard let user = connection.user, connectionByUser[user] == id else { return }
        connectionByUser[user] = nil
        logger.info("signaling: disconnected", metadata: ["user": "\(user)"])
        for (sessionID, session) in sessions where !session.isEnded && session.isActive(user) {
            // The others learn it from the server, as a hang-up of the user that lost its
            // connection (and the call log counts it as one).
            let notice = SignalingMessage(from: user, to: session.participants.filter { $0 != user && session.isActive($0) },
                                          session: sessionID,
                                          body: .hangUp(.init(userInfo: ["reason": "signaling connection lost"], result: .connectionLost)))
            await leave(user, session: sessionID, notice: notice)
            for recipient in notice.to { _ = deliver(notice, to: recipient) }
        }
        // Calls the builder still holds for the user (e.g. left already) settle too.
        for record in records.disconnected(user: user) { await store(record) }
    }

    /// `user` leaves a session on the server's own account (connection lost, ring timeout,
    /// shutdown): the session and the call log take `notice` as if the user had sent it.
    private func leave(_ user: String, session sessionID: String, notice: SignalingMessage) async {
        guard var session = sessions[sessionID], case let .hangUp(hangUp) = notice.body else { return }
        session.hangUp(by: user, to: notice.to, result: hangUp.result)
        sessions[sessionID] = session
        if let record = records.observe(notice) { await store(record) }
    }

    /// Users with an authenticated connection, sorted.
    var connectedUsers: [String] { connectionByUser.keys.sorted() }

    // MARK: - Messages

    /// Answers a message that could not be parsed (or was refused before parsing).
    func refuse(connection id: Int, code: SignalingErrorCode, reason: String, replyTo: String?) {
        reply(to: id, .error(.init(code: code, reason: reason, replyTo: replyTo)))
    }

    /// Handles one parsed message from connection `id`.
    func receive(_ message: SignalingMessage, connection id: Int) async {
        guard let connection = connections[id], !connection.closing else { return }
        guard let user = connection.user else {
            refuse(connection: id, code: .unauthenticated, reason: "send hello with your token first", replyTo: message.id)
            return
        }
        if let from = message.from, from != user {
            refuse(connection: id, code: .forbidden, reason: "this connection is authenticated as \(user), not \(from)", replyTo: message.id)
            return
        }
        var message = message
        message.from = user
        switch message.body {
        case .hello:
            // Hellos go to ``hello(user:messageID:connection:)``; here only a repeated one can arrive.
            refuse(connection: id, code: .malformed, reason: "already authenticated as \(user)", replyTo: message.id)
        case .welcome, .callLog, .error:
            refuse(connection: id, code: .malformed, reason: "\(message.type.rawValue) is sent by the server, not to it", replyTo: message.id)
        case let .callLogQuery(query):
            await answer(query, from: user, messageID: message.id, connection: id)
        case .call, .accept, .reject, .hangUp, .offer, .answer, .candidate, .mediaSettings, .customItems, .recording:
            await handleSessionMessage(message, from: user, connection: id)
        }
    }

    /// A hello that found every password check busy: refused (429) and closed, counted.
    func refusePasswordCheck(connection id: Int, messageID: String?) {
        guard let connection = connections[id], !connection.closing else { return }
        let limit = configuration.maxConcurrentPasswordChecks
        limits.hit(.passwordChecksOverLimit, "a hello from \(connection.address): \(limit) password checks running, at most \(limit)")
        refuse(connection: id, code: .tooManyMessages, reason: "\(limit) logins are being checked, the server's limit: try again later",
               replyTo: messageID)
        close(id, code: .policyViolation, reason: "too many logins at once")
    }

    /// Whether connection `id` still needs a hello (false: already authenticated, or closing).
    func awaitsHello(connection id: Int) -> Bool {
        guard let connection = connections[id] else { return false }
        return connection.user == nil && !connection.closing
    }

    /// The user a `hello` authenticated (checked by the connection, off the actor), or nil for
    /// a bad token.
    func hello(user: String?, messageID: String?, connection id: Int) {
        guard let connection = connections[id], !connection.closing else { return }
        if let user = connection.user {
            refuse(connection: id, code: .malformed, reason: "already authenticated as \(user)", replyTo: messageID)
            return
        }
        guard let user else {
            logger.info("signaling: connection \(id) refused: bad token")
            refuse(connection: id, code: .unauthenticated, reason: "unknown token", replyTo: messageID)
            close(id, code: .policyViolation, reason: "authentication failed")
            return
        }
        if let previous = connectionByUser[user], previous != id {
            refuse(connection: previous, code: .conflict, reason: "\(user) connected again: this connection is replaced", replyTo: nil)
            close(previous, code: .policyViolation, reason: "replaced by a newer connection")
            connections[previous]?.user = nil
        }
        connections[id]?.user = user
        connectionByUser[user] = id
        logger.info("signaling: connected", metadata: ["user": "\(user)"])
        reply(to: id, .welcome(.init(user: user)))
    }

    private func answer(_ query: SignalingBody.CallLogQuery, from user: String, messageID: String?, connection id: Int) async {
        do {
            var records = try await callLog.calls(of: user, role: query.role, result: query.result,
                                                  limit: query.limit ?? SignalingLimits.defaultCallLogLimit, offset: query.offset ?? 0)
            // An answer stays well under a client's frame limit: the oldest records give way.
            while records.count > 1,
                  SignalingMessage(body: .callLog(.init(replyTo: messageID, records: records))).jsonData().count > Self.maxCallLogReplyBytes {
                records.removeLast(max(1, records.count / 4))
            }
            reply(to: id, .callLog(.init(replyTo: messageID, records: records)))
        } catch {
            logger.error("signaling: \(error)")
            refuse(connection: id, code: .internalError, reason: "the call log cannot be read", replyTo: messageID)
        }
    }

    /// The rules of ``ServerCallSession``, then routing to the recipients.
    private func handleSessionMessage(_ message: SignalingMessage, from user: String, connection id: Int) async {
        guard let sessionID = message.session, (1...128).contains(sessionID.utf8.count) else {
            refuse(connection: id, code: .malformed, reason: "the session id must be 1 to 128 bytes", replyTo: message.id)
            return
        }
        let instant = ContinuousClock.now
        let started = Date()
        if message.to.contains(user) {
            refuse(connection: id, code: .malformed, reason: "a message cannot be addressed to its sender", replyTo: message.id)
            return
        }
        if case let .call(call) = message.body {
            guard call.initiator == user else {
                refuse(connection: id, code: .forbidden, reason: "the initiator of a call you send must be you (\(user)), not \(call.initiator)",
                       replyTo: message.id)
                return
            }
            if let existing = sessions[sessionID] {
                guard existing.initiator == user else {
                    refuse(connection: id, code: .conflict, reason: "session \(sessionID) belongs to another call", replyTo: message.id)
                    return
                }
                guard existing.opponents == call.opponents else {
                    refuse(connection: id, code: .conflict, reason: "the opponents of session \(sessionID) cannot change", replyTo: message.id)
                    return
                }
                guard !existing.isEnded else {
                    refuse(connection: id, code: .conflict, reason: "session \(sessionID) has ended", replyTo: message.id)
                    return
                }
            } else {
                let open = sessions.values.filter { $0.initiator == user && !$0.isEnded }.count
                guard open < configuration.maxOpenCallsPerUser else {
                    limits.hit(.callsOverOpenLimit, "a call of \(user): \(open) open, at most \(configuration.maxOpenCallsPerUser)")
                    refuse(connection: id, code: .conflict, reason: "\(open) calls of yours are still open (at most \(configuration.maxOpenCallsPerUser))",
                           replyTo: message.id)
                    return
                }
                // The id is taken in memory before the wait for the database, so that nothing
                // creates the session meanwhile; the log's row makes it taken for good.
                sessions[sessionID] = ServerCallSession(id: sessionID, initiator: user, opponents: call.opponents, started: instant)
                do {
                    try await callLog.callStarted(id: sessionID, caller: user, callees: call.opponents, conferenceType: call.conferenceType,
                                                  at: started)
                } catch {
                    sessions[sessionID] = nil
                    if case .duplicateCall = error {
                        limits.hit(.sessionIDsReused, "a call of \(user) with session id \(sessionID), used before")
                        refuse(connection: id, code: .conflict, reason: "session id \(sessionID) was already used: a new call needs a new id",
                               replyTo: message.id)
                    } else {
                        logger.error("signaling: \(error)")
                        refuse(connection: id, code: .internalError, reason: "the call log cannot store the call", replyTo: message.id)
                    }
                    return
                }
                logger.info("signaling: call \(call.conferenceType.rawValue)",
                            metadata: ["user": "\(user)", "opponents": "\(call.opponents.joined(separator: ","))", "session": "\(sessionID)"])
            }
            _ = records.observe(message, at: started)
            route(message, connection: id)
            return
        }
        guard var session = sessions[sessionID], session.isMember(user) else {
            refuse(connection: id, code: .forbidden, reason: "you are not invited to session \(sessionID)", replyTo: message.id)
            return
        }
        guard session.isActive(user) else {
            refuse(connection: id, code: .forbidden, reason: "you are no longer in session \(sessionID)", replyTo: message.id)
            return
        }
        if let stranger = message.to.first(where: { !session.isMember($0) }) {
            refuse(connection: id, code: .forbidden, reason: "\(stranger) is not in session \(sessionID)", replyTo: message.id)
            return
        }
        switch message.body {
        case .accept:
            guard user != session.initiator else {
                refuse(connection: id, code: .forbidden, reason: "the initiator does not accept its own call", replyTo: message.id)
                return
            }
            guard !session.isEnded else {
                refuse(connection: id, code: .conflict, reason: "session \(sessionID) has ended", replyTo: message.id)
                return
            }
            session.accept(by: user)
        case .reject:
            guard session.states[user] == .pending else {
                refuse(connection: id, code: .forbidden,
                       reason: user == session.initiator ? "the initiator hangs up, it does not reject" : "only a pending call can be rejected; hang up instead",
                       replyTo: message.id)
                return
            }
            session.reject(by: user)
        case let .hangUp(hangUp):
            session.hangUp(by: user, to: message.to, result: hangUp.result)
        case let .customItems(change):
            guard session.applyCustomItems(change) else {
                refuse(connection: id, code: .tooLarge,
                       reason: "custom items over the limit (\(SignalingLimits.maxDictionaryEntries) entries, \(ServerCallSession.maxCustomItemsBytes) bytes)",
                       replyTo: message.id)
                return
            }
        case .offer, .answer, .candidate, .mediaSettings, .recording, .call, .hello, .welcome, .callLogQuery, .callLog, .error:
            break
        }
        sessions[sessionID] = session
        // The record is stored before the recipients hear of the end, so that a query they
        // send on hearing it finds the call.
        if let record = records.observe(message) { await store(record) }
        // The first answer goes into the call's row too (a killed server's call keeps it).
        if case .accept = message.body, !session.answerLogged, let answered = records.answered(session: sessionID) {
            sessions[sessionID]?.answerLogged = true
            do {
                try await callLog.callAnswered(id: sessionID, at: answered)
            } catch {
                logger.error("signaling: \(error)")
            }
        }
        route(message, connection: id)
    }

    /// Stores a call that just ended (completing the row written at its start) and marks its
    /// session ended.
    private func store(_ record: CallRecord) async {
        sessions[record.callId]?.ended = .now
        do {
            try await callLog.insert(record)
            logger.info("signaling: call \(record.callId) ended: \(record.result.rawValue), \(Int(record.duration)) s")
        } catch {
            logger.error("signaling: \(error)")
        }
    }

    /// Delivers to every recipient; those not connected are reported to the sender.
    private func route(_ message: SignalingMessage, connection id: Int) {
        var unavailable: [String] = []
        var full: [String] = []
        for recipient in message.to {
            switch deliver(message, to: recipient) {
            case .delivered: break
            case .notConnected: unavailable.append(recipient)
            case .queueFull: full.append(recipient)
            }
        }
        if !unavailable.isEmpty {
            refuse(connection: id, code: .recipientUnavailable, reason: "not connected: \(unavailable.joined(separator: ", "))", replyTo: message.id)
        }
        if !full.isEmpty {
            refuse(connection: id, code: .recipientUnavailable, reason: "not reading its messages: \(full.joined(separator: ", "))", replyTo: message.id)
        }
    }

    private enum Delivery { case delivered, notConnected, queueFull }

    private func deliver(_ message: SignalingMessage, to user: String) -> Delivery {
        guard let id = connectionByUser[user], let connection = connections[id] else { return .notConnected }
        switch connection.outbound.yield(.text(String(decoding: message.jsonData(), as: UTF8.self))) {
        case .enqueued: return .delivered
        case .dropped, .terminated: return .queueFull
        @unknown default: return .queueFull
        }
    }

    private func reply(to id: Int, _ body: SignalingBody) {
        // A connection that does not read its replies loses them (its queue is bounded).
        _ = connections[id]?.outbound.yield(.text(String(decoding: SignalingMessage(body: body).jsonData(), as: UTF8.self)))
    }

    private func close(_ id: Int, code: CloseCode, reason: String) {
        connections[id]?.closing = true
        _ = connections[id]?.outbound.yield(.close(code, reason))
    }

    // MARK: - Timers and shutdown

    /// Ends unanswered calls past the ring limit, closes connections that never said hello,
    /// and forgets ended sessions after a while.
    func sweep() async {
        let instant = ContinuousClock.now
        for (id, connection) in connections where connection.user == nil && !connection.closing && instant - connection.opened > configuration.helloTimeout {
            refuse(connection: id, code: .unauthenticated, reason: "no hello within \(configuration.helloTimeout)", replyTo: nil)
            close(id, code: .policyViolation, reason: "no hello")
        }
        for (sessionID, session) in sessions {
            if let ended = session.ended {
                if instant - ended > configuration.endedSessionRetention { sessions[sessionID] = nil }
            } else if !session.answered, !session.pendingOpponents.isEmpty, instant - session.started > configuration.ringTimeout {
                // As if the initiator's answer timeout had run out for everyone still called.
                let notice = SignalingMessage(from: session.initiator, to: session.pendingOpponents, session: sessionID,
                                              body: .hangUp(.init(userInfo: ["reason": "nobody answered in time"], result: .noAnswer)))
                await leave(session.initiator, session: sessionID, notice: notice)
                for recipient in notice.to { _ = deliver(notice, to: recipient) }
            }
        }
    }

    /// Stops taking connections, ends the ongoing calls in the log (`connection_lost`: each
    /// participant still in them counts as hanging up so) and closes every connection (code
    /// 1001, going away).
    func shutdown() async {
        stopping = true
        for (sessionID, session) in sessions where !session.isEnded {
            for user in session.participants where session.isActive(user) {
                let notice = SignalingMessage(from: user, to: session.participants.filter { $0 != user }, session: sessionID,
                                              body: .hangUp(.init(userInfo: ["reason": "server shutting down"], result: .connectionLost)))
                await leave(user, session: sessionID, notice: notice)
            }
        }
        for id in connections.keys { close(id, code: .goingAway, reason: "server shutting down") }
    }

    /// How many connections are still open.
    var connectionCount: Int { connections.count }
}
