import Foundation

/// Where a ``SignalingChannel``'s connection to its server stands, from
/// ``SignalingChannel/connectionStates`` (``WebSocketSignalingChannel`` reconnects on its own
/// when its connection drops; ``InProcessSignalingHub``'s channels never drop).
public enum SignalingConnectionState: Sendable, Hashable, CustomStringConvertible {
    /// Logged in to the server at this URL (first, or again after reconnecting).
    case connected(URL)
    /// The connection dropped; attempt `attempt` (from 1) to log in again is next. `lastError`
    /// says why the connection or the previous attempt failed. Messages sent meanwhile are
    /// queued and go out after the next welcome.
    case reconnecting(attempt: Int, lastError: String)
    /// The channel is closed for good: its messages finish and sending throws.
    case closed(CloseReason)

    /// Why a channel closed for good.
    public enum CloseReason: Sendable, Hashable, CustomStringConvertible {
        /// `close()` was called.
        case closedByClient
        /// The server closed the connection for a reason a reconnection would not help with
        /// (1008, policy violation: e.g. "replaced by a newer connection" of the same user).
        case closedByServer(code: Int, reason: String)
        /// The server refused the token, or welcomed another user, when logging in again.
        case refused(String)
        /// No server welcomed the channel again within the channel's give-up time.
        case gaveUp(after: Duration, lastError: String)

        /// The reason in one line.
        public var description: String {
            switch self {
            case .closedByClient: "closed by the client"
            case let .closedByServer(code, reason):
                "closed by the server (\(code)\(reason.isEmpty ? "" : ": \(reason)"))"
            case let .refused(reason): "refused when logging in again: \(reason)"
            case let .gaveUp(after, lastError): "gave up reconnecting after \(after): \(lastError)"
            }
        }
    }

    /// The state in one line (`connected to URL`, `reconnecting (attempt N): ERROR`, `closed: REASON`).
    public var description: String {
        switch self {
        case let .connected(url): "connected to \(url.absoluteString)"
        case let .reconnecting(attempt, lastError): "reconnecting (attempt \(attempt)): \(lastError)"
        case let .closed(reason): "closed: \(reason)"
        }
    }
}
