import Foundation
import Logging
import SwiftRTCCore
import SwiftRTCSignaling
import Synchronization

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
        /// Bounds what waits in `outbound` (a close always goes in).
        let queue: SendQueue
        /// Tells the connection it is closed: it is cut off if it does not take the close in time.
        let closer: AsyncStream<Void>.Continuation
        let opened: ContinuousClock.Instant
        /// ``ClientAddress/key(forIP:)`` of the client.
        let address: String
        var user: String?
        /// A close was queued: nothing more is expected of it.
        var closing = false
    }

    /// The largest `callLog` answer, in bytes of JSON.
    static let maxCallLogReplyBytes = 512 * 1024

    /// The newest of `records` whose answer stays under ``maxCallLogReplyBytes`` (well under a
    /// client's frame limit): each record is encoded once, and the oldest give way.
    static func fitting(_ records: [CallRecord]) -> [CallRecord] {
        let encoder = JSONEncoder()
        var total = 1024  // the message around the records
        var kept = 0
        for record in records {
            total += ((try? encoder.encode(record).count) ?? maxCallLogReplyBytes) + 1
            guard total <= maxCallLogReplyBytes || kept == 0 else { break }
            kept += 1
        }
        return Array(records.prefix(max(1, min(kept, records.count))))
    }

    /// Who may log in, and how many times they were replaced.
    struct CredentialsVersion: Sendable {
        var credentials: SignalingCredentials
        var generation = 0
    }

    private let configuration: SignalingServer.Configuration
    /// Who may log in (replaced when the shared state's users change).
    private nonisolated let currentCredentials: Mutex<CredentialsVersion>
    let callLog: any CallLogStore
    /// Sessions and presence: this process's, or shared with other instances.
    nonisolated let state: any SignalingState
    nonisolated let metrics = SignalingMetrics()
    /// What each limit refused (read by the connection tasks too).
    nonisolated let limits: LimitCounters
    /// Password checks running (taken by the connection tasks, off the actor).
    nonisolated let passwordChecks: PasswordCheckGate
    /// Failed password logins per address and per user (consulted by the connection tasks).
    nonisolated let loginThrottle: LoginThrottle
    private let logger = SwiftRTCLogging.logger("signaling")
    private var connections: [Int: Connection] = [:]
    private var connectionsByAddress: [String: Int] = [:]
    private var connectionByUser: [String: Int] = [:]
    private var nextConnectionID = 1
    private var stopping = false
    /// A sweep is under way (it may own away users it took from the state).
    private var sweeping = false
    /// ``shutdown()`` waiting for the sweep under way to finish.
    private var sweepFinished: [CheckedContinuation<Void, Never>] = []
    /// Calls each user may still start.
    private var callStarts: CallStartBudget
    /// Calls started since the call log was last pruned, and when that was.
    private var callsSincePrune = 0
    private var lastPrune: ContinuousClock.Instant?

    init(configuration: SignalingServer.Configuration, credentials: SignalingCredentials, storage: SignalingStorage) {
        self.configuration = configuration
        currentCredentials = Mutex(CredentialsVersion(credentials: credentials))
        callLog = storage.callLog
        state = storage.state
        limits = LimitCounters(logger: logger, metrics: metrics)
        passwordChecks = PasswordCheckGate(limit: configuration.maxConcurrentPasswordChecks)
        loginThrottle = LoginThrottle()
        callStarts = CallStartBudget(perMinute: configuration.callsPerMinutePerUser)
    }

    /// Who may log in now.
    nonisolated var credentials: SignalingCredentials { currentCredentials.withLock { $0.credentials } }

    /// Who may log in now, with the generation a ``hello(user:messageID:connection:checkedWith:)``
    /// checked against them passes along.
    nonisolated var credentialsVersion: CredentialsVersion { currentCredentials.withLock { $0 } }

    /// Replaces who may log in, and closes the connections of users the new credentials do not
    /// let in as before (removed, or another token or password): an `error` (401) saying why,
    /// then 1008; logged in one line, counted (`signaling_connections_revoked_total`). They are
    /// away from then, as after any lost connection.
    func replaceCredentials(_ credentials: SignalingCredentials) {
        let previous = currentCredentials.withLock { current in
            defer { current = CredentialsVersion(credentials: credentials, generation: current.generation + 1) }
            return current.credentials
        }
        guard !connectionByUser.isEmpty else { return }
        let connected = Set(connectionByUser.keys)
        let before = previous.secrets(of: connected)
        let after = credentials.secrets(of: connected)
        var revoked: [String] = []
        for (user, id) in connectionByUser.sorted(by: { $0.key < $1.key }) where before[user] != after[user] {
            let reason = after[user] == nil ? "removed from the server's users" : "credentials changed: log in again"
            refuse(connection: id, code: .unauthenticated, reason: reason, replyTo: nil)
            close(id, code: .policyViolation, reason: reason)
            metrics.connectionsRevoked.increment()
            revoked.append(user)
        }
        guard !revoked.isEmpty else { return }
        let shown = revoked.prefix(20).joined(separator: ", ") + (revoked.count > 20 ? ", …" : "")
        logger.notice(
            "signaling: the users changed: closed the connections of \(revoked.count) removed or with other credentials: \(shown)"
        )
    }

    // MARK: - Connections

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
    private func leaveAll(_ user: String, reason: String, at time: Date) async {
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

    // MARK: - Messages

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

    private func answer(
        _ query: SignalingBody.CallLogQuery,
        from user: String,
        messageID: String?,
        connection id: Int
    ) async {
        do {
            let records = try await callLog.calls(
                of: user,
                role: query.role,
                result: query.result,
                limit: query.limit ?? SignalingLimits.defaultCallLogLimit,
                offset: query.offset ?? 0
            )
            reply(to: id, .callLog(.init(replyTo: messageID, records: Self.fitting(records))))
        } catch {
            logger.error("signaling: \(error)")
            refuse(connection: id, code: .internalError, reason: "the call log cannot be read", replyTo: messageID)
        }
    }

    /// The rules of ``SessionState`` (applied where the session is kept, one message at a time
    /// across instances), then routing to the recipients.
    private func handleSessionMessage(_ message: SignalingMessage, from user: String, connection id: Int) async {
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
        let outcome: SessionState.Outcome
        do {
            if case let .call(call) = message.body {
                guard call.initiator == user else {
                    refuse(
                        connection: id,
                        code: .forbidden,
                        reason: "the initiator of a call you send must be you (\(user)), not \(call.initiator)",
                        replyTo: message.id
                    )
                    return
                }
                let open = try await state.openCalls(initiatedBy: user)
                let maxOpen = configuration.maxOpenCallsPerUser
                outcome = try await state.withSession(sessionID) { stored in
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
            } else {
                outcome = try await state.withSession(sessionID) { stored in
                    guard stored != nil else {
                        return .refused(.forbidden, "you are not invited to session \(sessionID)")
                    }
                    return stored!.apply(message, from: user, at: now)
                }
            }
        } catch SignalingStateError.sessionTaken {
            refuse(
                connection: id,
                code: .conflict,
                reason: "session \(sessionID) belongs to another call",
                replyTo: message.id
            )
            return
        } catch {
            logger.error("signaling: \(error)")
            refuse(
                connection: id,
                code: .internalError,
                reason: "the call session cannot be read or stored",
                replyTo: message.id
            )
            return
        }
        switch outcome {
        case let .refused(code, reason, limit):
            if let limit { limits.hit(limit, "a message of \(user) in session \(sessionID): \(reason)") }
            refuse(connection: id, code: code, reason: reason, replyTo: message.id)
            return
        case .created:
            guard case let .call(call) = message.body else { return }
            guard callStarts.allow(user) else {
                try? await state.withSession(sessionID) { stored in stored = nil }
                let perMinute = callStarts.perMinute
                limits.hit(.callsOverRateLimit, "a call of \(user): over \(perMinute) calls a minute")
                refuse(
                    connection: id,
                    code: .tooManyMessages,
                    reason: "you started \(perMinute) calls in the last minute (at most): try again later",
                    replyTo: message.id
                )
                return
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
                if case .duplicateCall = error {
                    limits.hit(.sessionIDsReused, "a call of \(user) with session id \(sessionID), used before")
                    refuse(
                        connection: id,
                        code: .conflict,
                        reason: "session id \(sessionID) was already used: a new call needs a new id",
                        replyTo: message.id
                    )
                } else {
                    logger.error("signaling: \(error)")
                    refuse(
                        connection: id,
                        code: .internalError,
                        reason: "the call log cannot store the call",
                        replyTo: message.id
                    )
                }
                return
            }
            metrics.sessionsStarted.increment()
            callsSincePrune += 1
            if callsSincePrune >= configuration.callLogRetention.pruneInterval { await pruneCallLog() }
            logger.info(
                "signaling: call \(call.conferenceType.rawValue)",
                metadata: [
                    "user": "\(user)", "opponents": "\(call.opponents.joined(separator: ","))",
                    "session": "\(sessionID)",
                ]
            )
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

    /// Removes the calls ``SignalingServer/Configuration/callLogRetention`` no longer keeps.
    private func pruneCallLog() async {
        callsSincePrune = 0
        lastPrune = .now
        let retention = configuration.callLogRetention
        do {
            let removed = try await callLog.removeCalls(
                endedBefore: Date().addingTimeInterval(-retention.maxAge.seconds),
                keepingAtMost: retention.maxCalls
            )
            guard removed > 0 else { return }
            metrics.callsRemoved.increment(by: removed)
            logger.info("signaling: call log: removed \(removed) calls past its retention")
        } catch {
            logger.error("signaling: \(error)")
        }
    }

    /// Stores a call that just ended (completing the row written at its start).
    private func store(_ record: CallRecord) async {
        do {
            try await callLog.insert(record)
            metrics.callEnded(record.result)
            logger.info("signaling: call \(record.callId) ended: \(record.result.rawValue), \(Int(record.duration)) s")
        } catch {
            logger.error("signaling: \(error)")
        }
    }

    /// Delivers to every recipient; those not connected are reported to the sender.
    private func route(_ message: SignalingMessage, connection id: Int) async {
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

    private enum Delivery { case delivered, notConnected, queueFull }

    /// Delivers to `user`'s connection here, or through the shared state to the instance that
    /// holds it.
    private func deliver(_ message: SignalingMessage, to user: String) async -> Delivery {
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

    private func deliverHere(_ text: String, to user: String) -> Delivery {
        guard let id = connectionByUser[user], let connection = connections[id] else { return .notConnected }
        guard enqueue(text, on: connection) else { return .queueFull }
        metrics.routedLocally.increment()
        return .delivered
    }

    /// Queues `text` for the connection if its send queue has room for it.
    private func enqueue(_ text: String, on connection: Connection) -> Bool {
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

    private func reply(to id: Int, _ body: SignalingBody) {
        // A connection that does not read its replies loses them (its queue is bounded).
        guard let connection = connections[id] else { return }
        _ = enqueue(String(decoding: SignalingMessage(body: body).jsonData(), as: UTF8.self), on: connection)
    }

    /// Closes the connection after what is queued for it; one that does not take the close
    /// is cut off (``SignalingConnection/closeGrace``).
    private func close(_ id: Int, code: CloseCode, reason: String) {
        guard let connection = connections[id], !connection.closing else { return }
        connections[id]?.closing = true
        connection.outbound.yield(.close(code, reason))
        connection.closer.yield()
    }

    // MARK: - Timers and shutdown

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
            let ringTimeout = configuration.ringTimeout
            for sessionID in try await state.unansweredSessions(
                startedBefore: now.addingTimeInterval(-ringTimeout.seconds)
            ) {
                // As if the initiator's answer timeout had run out for everyone still called.
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
            try await state.forgetSessions(
                endedBefore: now.addingTimeInterval(-configuration.endedSessionRetention.seconds)
            )
            if lastPrune.map({ instant - $0 >= Self.pruneEvery }) ?? true { await pruneCallLog() }
        } catch  where !Task.isCancelled {
            logger.error("signaling: \(error)")
        } catch {}
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

    /// Whether new connections are taken (false once ``shutdown()`` began): `/readyz` says so,
    /// so that a load balancer sends no one here while the instance drains.
    var isTakingConnections: Bool { !stopping }

    /// How many connections are still open.
    var connectionCount: Int { connections.count }
}
