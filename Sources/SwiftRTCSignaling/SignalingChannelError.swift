/// Why a ``SignalingChannel`` could not send.
public enum SignalingChannelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The channel is closed.
    case closed
    /// The transport failed (e.g. the WebSocket dropped, or no server could be reached), with its message.
    case transport(String)
    /// A server that was reached refused the login (the token or password), and none accepted it:
    /// the reasons. Trying again with the same token will not help.
    case refused(String)
    /// The message breaks the protocol (checked before sending).
    case invalidMessage(SignalingProtocolError)
    /// The channel is reconnecting and already holds `limit` messages to send after it logs in again.
    case queueFull(limit: Int)

    /// The error in one line.
    public var description: String {
        switch self {
        case .closed: "signaling channel closed"
        case .transport(let message): "signaling transport failed: \(message)"
        case .refused(let message): "signaling login refused: \(message)"
        case .invalidMessage(let error): "invalid signaling message: \(error)"
        case .queueFull(let limit):
            "signaling channel reconnecting with \(limit) messages queued, its limit: message not sent"
        }
    }
}
