import Foundation
import SwiftRTCCore

/// One message of the SwiftRTC signaling wire protocol (see `SwiftRTCSignaling.docc/SignalingProtocol.md` beside this
/// file): a flat JSON object with a `type`, an optional message `id`, the sender (`from`, set by
/// the server from the authenticated connection, never trusted from a client), the recipients
/// (`to`, user ids), the call `session` it belongs to, and the fields of its ``Body``.
///
/// ```json
/// {"type":"accept","id":"m7","session":"5F0C…","to":["alice"],"sdp":"v=0…","userInfo":{"name":"Bob"}}
/// ```
public struct SignalingMessage: Sendable, Hashable {
    /// A sender-chosen id; an ``SignalingBody/error(_:)`` or ``SignalingBody/callLog(_:)`` reply
    /// carries it back in `replyTo`.
    public var id: String?
    /// The sending user's id. The server (or ``InProcessSignalingHub``) overwrites it with the
    /// authenticated user of the connection the message came in on.
    public var from: String?
    /// The recipients' user ids; empty for messages to the server itself (hello, call-log query).
    public var to: [String]
    /// The call session's id (a UUID string chosen by the initiator), for session messages.
    public var session: String?
    /// What the message asks or tells, with its fields.
    public var body: SignalingBody

    /// A message with its envelope and body.
    public init(id: String? = nil, from: String? = nil, to: [String] = [], session: String? = nil, body: SignalingBody)
    {
        self.id = id
        self.from = from
        self.to = to
        self.session = session
        self.body = body
    }

    /// The message's `type` on the wire.
    public var type: SignalingMessageType { body.type }
}
