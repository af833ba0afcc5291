/// Where a reconnection (ICE restart after a drop) stands, per user.
public enum CallReconnectionState: String, Sendable, Hashable, CaseIterable {
    /// The connection dropped; ICE restart offers are being sent.
    case reconnecting
    /// The connection is back.
    case reconnected
    /// It did not come back within the disconnect timeout.
    case failed
}
