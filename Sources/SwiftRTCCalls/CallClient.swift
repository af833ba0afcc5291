import Foundation
import Logging
import SwiftRTCCore
import SwiftRTCPeer
import SwiftRTCSignaling

/// One user's entry to calls: makes outgoing ``CallSession``s, announces incoming ones, routes
/// the signaling of every session, and answers call-log queries, over a ``SignalingChannel``
/// (the WebSocket client of the SwiftRTC signaling server, an ``InProcessSignalingHub``
/// channel, or your own).
///
/// The client's sessions go on while a ``WebSocketSignalingChannel`` reconnects (their media
/// never passes through the server); its events report the channel's connection as
/// ``CallClientEvent/signaling(_:)``.
///
/// ```swift
/// let client = CallClient(channel: channel, configuration: CallConfiguration(gatherAddresses: ["127.0.0.1"]))
/// for await event in await client.events() {
///     if case .incomingSession(let session, let userInfo) = event {
///         try await session.acceptCall(userInfo: ["hello": userInfo["name"] ?? "?"])
///     }
/// }
/// ```
public actor CallClient {
    /// This client's user.
    public nonisolated let userID: String
    /// The configuration every session of this client uses.
    public nonisolated let configuration: CallConfiguration
    let channel: any SignalingChannel
    let clock: CallClock
    let logger = SwiftRTCLogging.logger("calls")
    let eventHub = Broadcast<CallClientEvent>(replaysLatest: false, buffering: .unbounded)
    var sessions: [String: CallSession] = [:]
    /// Messages of sessions not known yet (a joined notice can overtake the call request).
    var early: [String: [SignalingMessage]] = [:]
    var ended = EndedSessionIDs()
    var queries: [String: CheckedContinuation<[CallRecord], any Error>] = [:]

    /// A client for the user of `channel`; it starts reading the channel at once.
    /// - Parameter clock: what the call timers sleep on (tests pass a faster one).
    public init(
        channel: any SignalingChannel,
        configuration: CallConfiguration = CallConfiguration(),
        clock: CallClock = .continuous
    ) {
        userID = channel.userID
        self.channel = channel
        self.configuration = configuration
        self.clock = clock
        let messages = channel.messages
        let states = channel.connectionStates
        // The connection's state changes become `signaling` events; the stream finishes when
        // the channel closes for good, before `disconnected`.
        let following = Task { [weak self] in
            for await state in states { await self?.signalingStateChanged(state) }
        }
        // Runs until the channel's messages finish (``disconnect()`` closes the channel).
        Task { [weak self] in
            for await message in messages { await self?.receive(message) }
            await following.value
            await self?.channelClosed()
        }
    }

    /// The client's events from now on.
    public func events() -> AsyncStream<CallClientEvent> { eventHub.subscribe() }

    /// The sessions that have not ended.
    public var activeSessions: [CallSession] { Array(sessions.values) }

    /// The session this user is talking in (accepted or started, not ended), if any: a
    /// further incoming call finds the user busy (``CallConfiguration/maxConcurrentCalls``
    /// rejects such calls without the application).
    public func activeSession() async -> CallSession? {
        for session in sessions.values {
            if !session.isIncoming { return session }
            if await session.hasAccepted { return session }
        }
        return nil
    }

    /// A new outgoing session with `opponents` (1 to 3 users: a mesh of up to 4); call
    /// ``CallSession/startCall(userInfo:)`` on it.
    public func createSession(opponents: [String], conferenceType: ConferenceType) throws(CallError) -> CallSession {
        var unique: [String] = []
        for user in opponents where user != userID && !user.isEmpty && !unique.contains(user) { unique.append(user) }
        guard (1..<SignalingLimits.maxParticipants).contains(unique.count) else {
            throw .invalidState(operation: "createSession with \(unique.count) opponents", state: .new)
        }
        let session = makeSession(
            id: UUID().uuidString,
            initiator: userID,
            opponents: unique,
            conferenceType: conferenceType
        )
        return session
    }

    func makeSession(id: String, initiator: String, opponents: [String], conferenceType: ConferenceType) -> CallSession
    {
        let channel = channel
        let session = CallSession(
            id: id,
            initiator: initiator,
            opponents: opponents,
            conferenceType: conferenceType,
            currentUser: userID,
            configuration: configuration,
            clock: clock,
            outbox: { message in
                do { try await channel.send(message) } catch {
                    SwiftRTCLogging.logger("calls").warning(
                        "\(message.type.rawValue) not sent: \(error)",
                        metadata: ["session": "\(id)"]
                    )
                }
            },
            onEnded: { [weak self] session, record in await self?.sessionEnded(session, record) },
            isBusyElsewhere: { [weak self] session in await self?.isBusy(besides: session) ?? false }
        )
        sessions[id] = session
        return session
    }

    func isBusy(besides session: CallSession) async -> Bool {
        for other in sessions.values where other !== session {
            if !other.isIncoming { return true }
            if await other.hasAccepted { return true }
        }
        return false
    }

    func sessionEnded(_ session: CallSession, _ record: CallRecord) {
        sessions[session.id] = nil
        ended.insert(session.id)
        eventHub.yield(.sessionEnded(session, record))
    }

    // MARK: Signaling in

    func receive(_ message: SignalingMessage) async {
        switch message.body {
        case .callLog(let log):
            if let id = log.replyTo, let waiter = queries.removeValue(forKey: id) {
                waiter.resume(returning: log.records)
            }
        case .error(let reply):
            if let id = reply.replyTo, let waiter = queries.removeValue(forKey: id) {
                waiter.resume(throwing: CallError.signaling(reply))
            } else {
                logger.warning("signaling error: \(reply)")
                eventHub.yield(.signalingError(reply))
            }
        case .hello, .welcome, .callLogQuery:
            break
        default:
            guard let sessionID = message.session, !ended.contains(sessionID) else { return }
            if let session = sessions[sessionID] {
                await session.receive(message)
            } else if case .call(let call) = message.body, let from = message.from, from == call.initiator,
                call.opponents.contains(userID)
            {
                let session = makeSession(
                    id: sessionID,
                    initiator: call.initiator,
                    opponents: call.opponents,
                    conferenceType: call.conferenceType
                )
                await session.incoming(message)
                if let limit = configuration.maxConcurrentCalls, sessions.count > max(1, limit) {
                    // Beyond the limit: busy at once, never announced (its end is).
                    early[sessionID] = nil
                    logger.info("call from \(call.initiator) rejected as busy", metadata: ["session": "\(sessionID)"])
                    await session.rejectAsBusy()
                    return
                }
                eventHub.yield(.incomingSession(session, userInfo: call.userInfo))
                for earlier in early.removeValue(forKey: sessionID) ?? [] { await session.receive(earlier) }
            } else {
                // Keep a few messages of sessions whose call request has not arrived yet.
                if early.count > 16 { early.removeAll() }
                if (early[sessionID]?.count ?? 0) < 16 { early[sessionID, default: []].append(message) }
            }
        }
    }

    func signalingStateChanged(_ state: SignalingConnectionState) {
        logger.debug("signaling: \(state)")
        eventHub.yield(.signaling(state))
    }

    func channelClosed() {
        for waiter in queries.values {
            waiter.resume(
                throwing: CallError.signaling(.init(code: .internalError, reason: "signaling channel closed"))
            )
        }
        queries = [:]
        eventHub.yield(.disconnected)
    }

    // MARK: Call log

    /// How long ``callLog(role:result:limit:)`` waits for the server's answer.
    static let queryTimeout = Duration.seconds(10)

    /// The user's call log from the signaling server, newest first.
    /// - Parameters:
    ///   - role: only calls made (`caller`) or received (`callee`); nil for both.
    ///   - result: only calls that ended this way.
    ///   - limit: at most this many (1...500; the server's default is 50).
    ///   - offset: after skipping this many newer ones (the next page: `offset + limit`).
    public func callLog(
        role: CallRole? = nil,
        result: CallEndResult? = nil,
        limit: Int? = nil,
        offset: Int? = nil
    ) async throws -> [CallRecord] {
        let id = UUID().uuidString
        let message = SignalingMessage(
            id: id,
            body: .callLogQuery(.init(role: role, result: result, limit: limit, offset: offset))
        )
        return try await withCheckedThrowingContinuation { continuation in
            queries[id] = continuation
            Task {
                do { try await channel.send(message) } catch { self.failQuery(id, error) }
            }
            // A server that never answers does not hang the caller.
            Task {
                try? await Task.sleep(for: Self.queryTimeout)
                self.failQuery(id, CallError.timedOut("call-log query, no answer within \(Self.queryTimeout)"))
            }
        }
    }

    func failQuery(_ id: String, _ error: any Error) {
        queries.removeValue(forKey: id)?.resume(throwing: error)
    }

    /// Hangs up every session and closes the channel.
    public func disconnect() async {
        for session in sessions.values { await session.hangUp() }
        await channel.close()
    }
}

extension CallSession {
    /// Rejects an incoming call as busy whatever the other sessions are doing (the client is
    /// at ``CallConfiguration/maxConcurrentCalls``); the session ends ``CallEndResult/busy``.
    func rejectAsBusy() async {
        guard isIncoming, state == .pending, !hasAccepted else { return }
        localHangUp = true
        rejects.append((currentUser, true))
        await message(to: liveUsers, .reject(.init(userInfo: [:], busy: true)))
        for user in liveUsers { setUserState(user, .closed) }
        await finish()
    }

    /// Sets up an incoming session from its first call request.
    func incoming(_ request: SignalingMessage) {
        guard case .call(let call) = request.body else { return }
        initiatorOffer = call.sdp
        startedAt = Date()
        setState(.pending)
        setUserState(initiator, .pending)
        for user in opponents where user != currentUser { setUserState(user, .pending) }
    }
}

extension CallClient {
    /// Connects to a signaling server (`ws://` or `wss://`) and logs in with `token`
    /// (``WebSocketSignalingChannel/connect(to:token:timeout:trust:)``): a client for that
    /// user, in one line. Unless `configuration` says where, host candidates are gathered
    /// where the server's users can be reached (loopback for a server on loopback).
    public static func connect(
        to server: URL,
        token: String,
        configuration: CallConfiguration = CallConfiguration(),
        trust: TLSTrust = .system
    ) async throws(SignalingChannelError) -> CallClient {
        try await connect(to: [server], token: token, configuration: configuration, trust: trust)
    }

    /// Connects to the first of `servers` (instances of one signaling service) that welcomes
    /// `token` (``WebSocketSignalingChannel/connect(to:token:timeout:reconnectFor:trust:)``);
    /// the channel reconnects, to the next of them, when its connection drops. Unless
    /// `configuration` says where, host candidates are gathered where the first server's users
    /// can be reached.
    public static func connect(
        to servers: [URL],
        token: String,
        configuration: CallConfiguration = CallConfiguration(),
        trust: TLSTrust = .system
    ) async throws(SignalingChannelError) -> CallClient {
        let channel = try await WebSocketSignalingChannel.connect(to: servers, token: token, trust: trust)
        var configuration = configuration
        if configuration.gatherAddresses.isEmpty {
            configuration.gatherAddresses = PeerConnection.Configuration.gatherAddresses(
                toReach: servers.first?.host ?? ""
            )
        }
        return CallClient(channel: channel, configuration: configuration)
    }
}
