import SwiftRTCPeer
import SwiftRTCSignaling

/// What happens in a ``CallClient``, from ``CallClient/events()``.
public enum CallClientEvent: Sendable {
    /// A call came in: accept or reject it with the session. `userInfo` is the caller's.
    /// ``CallClient/activeSession`` tells whether this user is already in a call (busy).
    case incomingSession(CallSession, userInfo: [String: String])
    /// A session ended.
    case sessionEnded(CallSession, CallRecord)
    /// The signaling server refused a message of this client.
    case signalingError(SignalingBody.ErrorReply)
    /// The signaling channel's connection changed (``SignalingChannel/connectionStates``): a
    /// ``WebSocketSignalingChannel`` whose connection dropped reports `reconnecting`, then
    /// `connected` again (sessions go on meanwhile: their media does not pass through the
    /// server), or `closed` when it gave up, followed by ``disconnected``.
    case signaling(SignalingConnectionState)
    /// The signaling channel closed.
    case disconnected
}
