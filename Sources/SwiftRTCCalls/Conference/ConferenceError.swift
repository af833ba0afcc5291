import SwiftRTCJanus

/// Why joining, publishing or subscribing in a conference room failed.
public enum ConferenceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Janus refused or did not answer (its error).
    case janus(JanusError)
    /// Janus answered something the VideoRoom protocol does not (what).
    case unexpectedReply(String)
    /// A connection with Janus could not be made or negotiated (why).
    case connection(String)
    /// A message for the room was not sent (why).
    case messageNotSent(String)

    public var description: String {
        switch self {
        case .janus(let error): "\(error)"
        case .unexpectedReply(let what): "unexpected answer from Janus: \(what)"
        case .connection(let why): "connection with Janus: \(why)"
        case .messageNotSent(let why): "message not sent: \(why)"
        }
    }

    /// `error` as a conference error: Janus's as ``janus(_:)``, anything else (a connection's)
    /// as ``connection(_:)``.
    init(_ error: any Error) {
        switch error {
        case let error as ConferenceError: self = error
        case let error as JanusError: self = .janus(error)
        default: self = .connection("\(error)")
        }
    }
}
