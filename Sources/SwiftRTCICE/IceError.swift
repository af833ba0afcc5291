import SwiftRTCSDP

/// What went wrong in ICE, with where: the server, the candidate, the call.
public enum IceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An ICE server's host name did not resolve.
    case serverUnresolvable(server: IceServer, reason: String)
    /// A TURN server gave no relayed candidate. `stunErrorCode` and `reason` come from the
    /// server's STUN error response (e.g. 401 Unauthorized for wrong credentials) when the
    /// agent could learn it; `nil` if the server did not answer.
    case turnAllocationFailed(server: IceServer, stunErrorCode: Int?, reason: String)
    /// A remote candidate names an mDNS host (`.local`) that cannot be resolved here.
    case mdnsCandidateUnresolvable(candidate: IceCandidate, reason: String)
    /// A remote candidate libnice does not take (address not an IP literal, wrong component).
    case remoteCandidateRejected(candidate: IceCandidate, reason: String)
    /// An address to gather on is neither an IP literal nor a local interface name.
    case invalidLocalAddress(String)
    /// A libnice call failed.
    case libnice(call: String)
    /// The agent is closed.
    case closed

    public var description: String {
        switch self {
        case .serverUnresolvable(let server, let reason):
            "ICE server \(server) did not resolve: \(reason)"
        case .turnAllocationFailed(let server, let code?, let reason):
            "TURN server \(server) refused the allocation: STUN error \(code) \(reason)"
        case .turnAllocationFailed(let server, nil, let reason):
            "TURN server \(server) gave no relayed candidate: \(reason)"
        case .mdnsCandidateUnresolvable(let candidate, let reason):
            "remote candidate '\(candidate.sdpLine)' names mDNS host \(candidate.address), which cannot be resolved: \(reason)"
        case .remoteCandidateRejected(let candidate, let reason):
            "remote candidate '\(candidate.sdpLine)' rejected: \(reason)"
        case .invalidLocalAddress(let address):
            "'\(address)' is neither an IP address nor a local interface name"
        case .libnice(let call):
            "libnice call \(call) failed"
        case .closed:
            "the ICE agent is closed"
        }
    }
}
