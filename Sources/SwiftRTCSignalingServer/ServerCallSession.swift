import Foundation
import SwiftRTCSignaling

/// One call session as the signaling server sees it, for deciding who may send what in it:
/// who started it, who is invited, and where each invited user stands. (The call-log record
/// comes from `CallLogBuilder`, fed with the same messages.)
///
/// - The session is created by the first `call` of its initiator (the sender); its opponents
///   are fixed then. Nobody else ever joins: every message in the session must come from the
///   initiator or an opponent still in it, and go to members.
/// - An opponent is `pending` until it sends `accept` (`accepted`) or `reject` (`rejected`); a
///   `hangUp` with result `no_answer` from the initiator marks its pending recipients
///   `withdrawn`; any other `hangUp` (or the user's signaling connection closing) makes the
///   sender leave, and the initiator leaving withdraws the call from those still pending.
struct ServerCallSession: Sendable, Hashable, Codable {
    /// Where an opponent stands.
    enum OpponentState: String, Sendable, Hashable, Codable {
        case pending, accepted, rejected, withdrawn, left
    }

    let id: String
    let initiator: String
    let opponents: [String]
    /// When the session was created (ring timeout). Wall-clock time: servers sharing the
    /// session read it too.
    let started: Date
    private(set) var answered = false
    private(set) var states: [String: OpponentState]
    private(set) var initiatorLeft = false
    /// The custom items as the messages left them (to bound their size).
    private(set) var customItems: [String: String] = [:]
    /// When the call log recorded the call's end.
    var ended: Date?
    /// The call log's row has the first answer.
    var answerLogged = false

    /// Largest total size of the custom items (keys and values, in UTF-8 bytes).
    static let maxCustomItemsBytes = 16 * 1024

    init(id: String, initiator: String, opponents: [String], started: Date) {
        self.id = id
        self.initiator = initiator
        self.opponents = opponents
        self.started = started
        self.states = Dictionary(uniqueKeysWithValues: opponents.map { ($0, .pending) })
    }

    /// Everybody invited, initiator first.
    var participants: [String] { [initiator] + opponents }

    /// Whether `user` is the initiator or an opponent.
    func isMember(_ user: String) -> Bool { user == initiator || states[user] != nil }

    /// Whether `user` is still in the session (not left, rejected or withdrawn).
    func isActive(_ user: String) -> Bool {
        if user == initiator { return !initiatorLeft }
        switch states[user] {
        case .pending?, .accepted?: return true
        default: return false
        }
    }

    var isEnded: Bool { ended != nil }

    /// The opponents still being called.
    var pendingOpponents: [String] { opponents.filter { states[$0] == .pending } }

    // MARK: - Transitions (the hub checked membership and activity first)

    mutating func accept(by user: String) {
        states[user] = .accepted
        answered = true
    }

    mutating func reject(by user: String) {
        states[user] = .rejected
    }

    /// A participant hung up to `recipients` with the given result.
    mutating func hangUp(by user: String, to recipients: [String], result: CallEndResult?) {
        if user == initiator, result == .noAnswer {
            for recipient in recipients where states[recipient] == .pending { states[recipient] = .withdrawn }
        } else {
            leave(user)
        }
    }

    /// `user` is gone (hung up, or its signaling connection closed).
    mutating func leave(_ user: String) {
        if user == initiator {
            initiatorLeft = true
            for opponent in pendingOpponents { states[opponent] = .withdrawn }
        } else if isActive(user) {
            states[user] = .left
        }
    }

    /// Applies a custom items change (as `CallLogBuilder` does: updates, then deletions); false
    /// when the items would grow over the limits.
    mutating func applyCustomItems(_ change: SignalingBody.CustomItems) -> Bool {
        var items = customItems
        items.merge(change.updated) { _, new in new }
        for key in change.deleted { items[key] = nil }
        let bytes = items.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        guard items.count <= SignalingLimits.maxDictionaryEntries, bytes <= Self.maxCustomItemsBytes else {
            return false
        }
        customItems = items
        return true
    }
}
