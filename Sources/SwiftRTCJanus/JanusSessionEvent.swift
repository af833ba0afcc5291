/// What happens to a session's connection.
public enum JanusSessionEvent: Sendable, Equatable {
    /// The WebSocket dropped; the session is reconnecting.
    case connectionLost(reason: String)
    /// A new WebSocket claimed the session back: its handles go on.
    case reconnected
    /// The session is gone (Janus restarted, timed out or refused the claim): every handle
    /// ended; join again with a new session.
    case closed(reason: String)
}
