import SwiftRTCSDP

/// What gathering produces, in order: candidates as they are found (trickle), then
/// ``complete`` once (again after each gathering).
public enum IceGatheringEvent: Sendable, Hashable {
    /// A local candidate to send to the peer.
    case candidate(IceCandidate)
    /// No more candidates will come from this gathering (send end-of-candidates).
    case complete
}
