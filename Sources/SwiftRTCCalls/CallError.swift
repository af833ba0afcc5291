import SwiftRTCSignaling

/// Why a call operation was refused.
public enum CallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not allowed in this session state or role (e.g. `acceptCall` on an outgoing call).
    case invalidState(operation: String, state: CallSessionState)
    /// The media connection could not be set up.
    case connection(String)
    /// The signaling server refused a request.
    case signaling(SignalingBody.ErrorReply)
    /// No reply from the signaling server in time.
    case timedOut(String)
    /// The recording cannot start (its folder does not exist or is not one).
    case recording(String)
    /// A chat message was not sent to `to` (a user, or `everyone`), and why.
    case messageNotSent(to: String, reason: String)

    /// The error in one line.
    public var description: String {
        switch self {
        case let .invalidState(operation, state): "\(operation) is not allowed in session state \(state.rawValue)"
        case .connection(let why): "connection: \(why)"
        case .signaling(let reply): "signaling: \(reply)"
        case .timedOut(let what): "timed out: \(what)"
        case .recording(let why): why
        case let .messageNotSent(user, why): "chat message not sent to \(user): \(why)"
        }
    }
}
