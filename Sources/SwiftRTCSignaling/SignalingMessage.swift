/// One message of the SwiftRTC signaling wire protocol: a JSON object with a `type`, the
/// session it belongs to, sender and recipient, and string-valued fields.
public struct SignalingMessage: Sendable, Hashable, Codable {
    /// What the message asks or tells.
    public enum Kind: String, Sendable, Hashable, Codable {
        case call, accept, reject, hangUp = "hang_up", offer, answer, candidate, update, error
    }

    public var type: Kind
    /// The call session's id.
    public var session: String
    /// The sending user's id (the server sets it from the authenticated connection).
    public var from: String
    /// The recipients' user ids.
    public var to: [String]
    /// The user info and other fields of the message.
    public var fields: [String: String]

    public init(type: Kind, session: String, from: String, to: [String], fields: [String: String] = [:]) {
        self.type = type
        self.session = session
        self.from = from
        self.to = to
        self.fields = fields
    }
}
