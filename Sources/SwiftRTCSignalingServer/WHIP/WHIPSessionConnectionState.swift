/// What the connection of a ``WHIPEndpointSession`` did, as the endpoint watches it.
public enum WHIPSessionConnectionState: Sendable, Hashable {
    /// Not connected yet (ICE or DTLS under way), or lost for a while.
    case connecting
    /// Connected (ICE and DTLS): the connect timeout no longer applies.
    case connected
    /// Failed for good (ICE or DTLS): the endpoint ends the session.
    case failed
}
