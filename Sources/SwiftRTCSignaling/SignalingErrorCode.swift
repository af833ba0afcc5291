import Foundation
import SwiftRTCCore

/// The `code` of an `error` reply, HTTP-like.
public enum SignalingErrorCode: Int, Sendable, Hashable, Codable, CaseIterable {
    /// Not JSON, unknown `type`, missing or ill-typed field, or over a limit.
    case malformed = 400
    /// No valid `hello` yet, or a bad token.
    case unauthenticated = 401
    /// Not allowed: not invited to the session, not its initiator, or acting as another user.
    case forbidden = 403
    /// A recipient is not connected (or does not exist).
    case recipientUnavailable = 404
    /// The session id is already used by another call.
    case conflict = 409
    /// The message is larger than ``SignalingLimits/maxMessageBytes``.
    case tooLarge = 413
    /// The sender sends faster than the server's rate limit (the message was dropped).
    case tooManyMessages = 429
    /// The server failed (e.g. the call-log store).
    case internalError = 500
}
