/// Why a request to Janus failed.
public enum JanusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The WebSocket could not be opened, or the session not created (the reason given).
    case unreachable(String)
    /// Janus answered with `error` (its code and reason, e.g. 458 "No such session").
    case janus(code: Int, reason: String)
    /// The plugin answered with an error (VideoRoom's `error_code` and `error`, e.g. 426 "No
    /// such room").
    case plugin(code: Int, reason: String)
    /// No answer within the request timeout.
    case timedOut(request: String)
    /// The connection dropped while the request waited (it may or may not have been done).
    case connectionLost
    /// The session is gone: destroyed, timed out, or not claimed back after a reconnection.
    case sessionClosed
    /// The answer could not be understood (what was missing).
    case malformedReply(String)
    /// More requests wait for answers than ``JanusSession/maxPendingRequests``.
    case tooManyPendingRequests
    /// More handles than ``JanusSession/maxHandles``.
    case tooManyHandles

    public var description: String {
        switch self {
        case .unreachable(let reason): "Janus unreachable: \(reason)"
        case .janus(let code, let reason): "Janus error \(code): \(reason)"
        case .plugin(let code, let reason): "plugin error \(code): \(reason)"
        case .timedOut(let request): "Janus did not answer \(request) in time"
        case .connectionLost: "the connection to Janus was lost"
        case .sessionClosed: "the Janus session is closed"
        case .malformedReply(let what): "malformed reply from Janus: \(what)"
        case .tooManyPendingRequests: "too many requests waiting for Janus"
        case .tooManyHandles: "too many plugin handles in one session"
        }
    }
}
