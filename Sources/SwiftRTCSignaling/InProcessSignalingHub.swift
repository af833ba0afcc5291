import Synchronization

/// A signaling "server" inside one process: bots (or a test, or an app that hosts several call
/// clients) connect users to it and get ``SignalingChannel``s that route messages to each other
/// with the rules of the SwiftRTC signaling server (see `SwiftRTCSignaling.docc/SignalingProtocol.md`):
///
/// - `from` is set to the channel's user; messages are checked with ``SignalingMessage/validate()``;
/// - a `call` registers its session (initiator and opponents); only those users may send or
///   receive that session's messages, and only the initiator may send `call`;
/// - a recipient that is not connected gets the sender an `error` 404 (`recipientUnavailable`).
///
/// Refusals come back to the sender as `error` messages on its channel, as over a network.
/// Call records (``CallLogBuilder``) are kept in memory and answer `callLogQuery`.
public final class InProcessSignalingHub: Sendable {
    private struct Session {
        var initiator: String
        var members: Set<String>
    }

    private struct State {
        var channels: [String: InProcessSignalingChannel] = [:]
        var sessions: [String: Session] = [:]
        var log = CallLogBuilder()
        var records: [CallRecord] = []
    }

    private let state = Mutex(State())

    /// An empty hub.
    public init() {}

    /// Connects `user`, replacing (and closing) an earlier channel of the same user.
    public func connect(user: String) -> InProcessSignalingChannel {
        let channel = InProcessSignalingChannel(userID: user, hub: self)
        let previous = state.withLock { state in
            defer { state.channels[user] = channel }
            return state.channels[user]
        }
        previous?.finish()
        return channel
    }

    /// The users connected now.
    public var connectedUsers: Set<String> { state.withLock { Set($0.channels.keys) } }

    /// The records of the calls that ended, oldest first.
    public var callRecords: [CallRecord] { state.withLock { $0.records } }

    func disconnect(_ channel: InProcessSignalingChannel) {
        state.withLock { state in
            guard state.channels[channel.userID] === channel else { return }
            state.channels[channel.userID] = nil
            state.records += state.log.disconnected(user: channel.userID)
        }
        channel.finish()
    }

    func route(_ original: SignalingMessage, from sender: InProcessSignalingChannel) {
        var message = original
        message.from = sender.userID
        let replyTo = message.id
        func refuse(_ code: SignalingErrorCode, _ reason: String) {
            sender.deliver(SignalingMessage(body: .error(.init(code: code, reason: reason, replyTo: replyTo))))
        }
        do throws(SignalingProtocolError) {
            try message.validate()
        } catch {
            return refuse(error.code, error.description)
        }
        switch message.body {
        case .hello, .welcome, .callLog, .error:
            return refuse(.malformed, "\(message.type.rawValue) is not sent by clients of the in-process hub")
        case .callLogQuery(let query):
            let limited = callLog(query, of: sender.userID)
            return sender.deliver(SignalingMessage(body: .callLog(.init(replyTo: replyTo, records: limited))))
        default:
            break
        }
        let user = sender.userID
        let (recipients, refusal): ([InProcessSignalingChannel], (SignalingErrorCode, String)?) = state.withLock {
            state in
            let sessionID = message.session ?? ""
            if case .call(let call) = message.body {
                guard call.initiator == user else {
                    return ([], (.forbidden, "call initiator \(call.initiator) is not the sender \(user)"))
                }
                if let existing = state.sessions[sessionID] {
                    guard existing.initiator == user, existing.members == Set(call.opponents + [user]) else {
                        return ([], (.conflict, "session \(sessionID) belongs to another call"))
                    }
                } else {
                    state.sessions[sessionID] = Session(initiator: user, members: Set(call.opponents + [user]))
                }
            }
            guard let session = state.sessions[sessionID] else {
                return ([], (.forbidden, "no call with session \(sessionID)"))
            }
            guard session.members.contains(user) else {
                return ([], (.forbidden, "\(user) is not invited to session \(sessionID)"))
            }
            if let stranger = message.to.first(where: { !session.members.contains($0) }) {
                return ([], (.forbidden, "\(stranger) is not in session \(sessionID)"))
            }
            if let record = state.log.observe(message) { state.records.append(record) }
            return (message.to.compactMap { state.channels[$0] }, nil)
        }
        if let refusal { return refuse(refusal.0, refusal.1) }
        for recipient in recipients { recipient.deliver(message) }
        let missing = message.to.filter { id in !recipients.contains { $0.userID == id } }
        if !missing.isEmpty { refuse(.recipientUnavailable, "not connected: \(missing.joined(separator: ", "))") }
    }

    /// Answers a call log query of `user`: the user's calls, newest first, that match the
    /// query's role and result, from its offset and at most its limit of them.
    private func callLog(_ query: SignalingBody.CallLogQuery, of user: String) -> [CallRecord] {
        let records = state.withLock { $0.records }.reversed().filter { record in
            let role: CallRole? = record.caller == user ? .caller : record.callees.contains(user) ? .callee : nil
            return role != nil && (query.role == nil || query.role == role)
                && (query.result == nil || query.result == record.result)
        }
        return Array(
            records.dropFirst(query.offset ?? 0).prefix(query.limit ?? SignalingLimits.defaultCallLogLimit)
        )
    }
}
