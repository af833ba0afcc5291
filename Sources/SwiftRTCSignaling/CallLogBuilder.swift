import Foundation

/// Derives call records from the session messages a signaling server routes, by the rules of
/// `SignalingProtocol.md` ("End results and how the server derives them"): feed it every
/// routed message (with `from` set) and every disconnect; it returns each call's
/// ``CallRecord`` when the call is over. Pure state, no I/O: the signaling server stores what
/// it returns (and, with many instances, the builder itself, per session: it is `Codable`),
/// ``InProcessSignalingHub`` keeps it in memory.
public struct CallLogBuilder: Sendable, Hashable, Codable {
    private struct Call: Sendable, Hashable, Codable {
        var initiator: String
        var opponents: [String]
        var conferenceType: ConferenceType
        var started: Date
        var answered: Date?
        var accepted: Set<String> = []
        var left: Set<String> = []
        var rejects: [Bool] = []
        var canceled = false
        var loss: CallEndResult?
        var items: [String: String] = [:]

        var pending: [String] { opponents.filter { !accepted.contains($0) && !left.contains($0) } }
        var active: [String] { ([initiator] + accepted.sorted()).filter { !left.contains($0) } }
        var isOver: Bool {
            if accepted.isEmpty { return left.contains(initiator) || pending.isEmpty }
            return active.count <= 1 && pending.isEmpty
        }
    }

    private var calls: [String: Call] = [:]

    /// An empty builder.
    public init() {}

    /// The calls not over yet.
    public var openCalls: Int { calls.count }

    /// When the call of `sessionID` was first answered (an `accept` with SDP from an
    /// opponent), while it is not over; nil when nobody answered yet or it is not open.
    public func answered(session sessionID: String) -> Date? { calls[sessionID]?.answered }

    /// Takes one routed message (`from` must be the authenticated sender); returns the record
    /// of the call it ended, if it ended one.
    public mutating func observe(_ message: SignalingMessage, at time: Date = Date()) -> CallRecord? {
        guard let sessionID = message.session, let sender = message.from else { return nil }
        if case .call(let request) = message.body {
            if calls[sessionID] == nil, request.initiator == sender {
                calls[sessionID] = Call(
                    initiator: sender,
                    opponents: request.opponents,
                    conferenceType: request.conferenceType,
                    started: time
                )
            }
            return nil
        }
        guard var call = calls[sessionID], sender == call.initiator || call.opponents.contains(sender) else {
            return nil
        }
        switch message.body {
        case .accept(let accept):
            if accept.sdp != nil, sender != call.initiator, !call.left.contains(sender) {
                call.accepted.insert(sender)
                if call.answered == nil { call.answered = time }
            }
        case .reject(let reject):
            if !call.accepted.contains(sender), !call.left.contains(sender) {
                call.rejects.append(reject.busy)
                call.left.insert(sender)
            }
        case .hangUp(let hangUp):
            if sender == call.initiator, hangUp.result == .noAnswer {
                // Only the initiator's no-answer hang-up withdraws the request, and only from
                // those of its recipients still being called (the signaling server's session
                // rule): the initiator stays, an opponent who answered stays.
                call.left.formUnion(message.to.filter { call.pending.contains($0) })
            } else {
                // Any other hang-up is the sender leaving, whatever its result says.
                call.left.insert(sender)
                switch hangUp.result {
                case .canceled? where sender == call.initiator: call.canceled = true
                case let loss? where loss == .timedOut || loss == .connectionLost || loss == .failed:
                    if call.loss == nil { call.loss = loss }
                default: break
                }
                // The initiator leaving withdraws the request from everyone who has not answered.
                if sender == call.initiator { call.left.formUnion(call.pending) }
            }
        case .customItems(let change):
            call.items.merge(change.updated) { _, new in new }
            for key in change.deleted { call.items[key] = nil }
        default:
            break
        }
        return settle(sessionID, call, at: time)
    }

    /// A user's connection to the server closed: they left every call they were in; returns
    /// the records of the calls that ended.
    public mutating func disconnected(user: String, at time: Date = Date()) -> [CallRecord] {
        var records: [CallRecord] = []
        for (sessionID, var call) in calls where call.initiator == user || call.opponents.contains(user) {
            call.left.insert(user)
            if call.initiator == user { call.left.formUnion(call.pending) }
            if let record = settle(sessionID, call, at: time) { records.append(record) }
        }
        return records
    }

    private mutating func settle(_ sessionID: String, _ call: Call, at time: Date) -> CallRecord? {
        guard call.isOver else {
            calls[sessionID] = call
            return nil
        }
        calls[sessionID] = nil
        let result: CallEndResult
        if let loss = call.loss {
            result = loss
        } else if call.answered != nil {
            result = .completed
        } else if call.canceled {
            result = .canceled
        } else if !call.rejects.isEmpty, call.rejects.count == call.opponents.count {
            result = call.rejects.allSatisfy { $0 } ? .busy : .declined
        } else {
            result = .noAnswer
        }
        return CallRecord(
            callId: sessionID,
            caller: call.initiator,
            callees: call.opponents,
            conferenceType: call.conferenceType,
            started: call.started,
            answered: call.answered,
            ended: time,
            result: result,
            customItems: call.items
        )
    }
}
