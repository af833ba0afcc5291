import SwiftRTCRTP

/// What the delay-based detector concludes about the path (GCC, draft-ietf-rmcat-gcc-02 §5.4).
public enum BandwidthUsage: Sendable, Hashable {
    /// Queueing delay is not growing.
    case normal
    /// Queueing delay grows: the path is over-used.
    case overusing
    /// Queueing delay shrinks: a queue drains.
    case underusing
}
