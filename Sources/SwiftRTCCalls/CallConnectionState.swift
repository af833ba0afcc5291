/// The state of the connection with one opponent, as the mobile call SDKs report it.
public enum CallConnectionState: String, Sendable, Hashable, CaseIterable {
    /// Not known (a user that is not in the session).
    case unknown
    /// The connection object exists; nothing was sent yet.
    case new
    /// The call request was sent (or received) and is not answered yet.
    case pending
    /// Answered: offer and answer are exchanged, ICE starts.
    case connecting
    /// ICE connectivity checks are running.
    case checking
    /// Media flows (ICE and DTLS connected).
    case connected
    /// The connection dropped during the call; reconnection runs.
    case disconnected
    /// The disconnect timeout ran out before the connection came back; the user's connection is closed.
    case disconnectTimeout
    /// Closed by this side (hang up, end of the session).
    case closed
    /// The number of states, kept for parity with the SDKs' enumeration; never reported.
    case count
    /// The user did not answer before the answer timeout.
    case noAnswer
    /// The user rejected the call.
    case rejected
    /// The user hung up.
    case hungUp
    /// The connection failed (ICE or DTLS) and could not be restored.
    case failed

    /// Whether the user is out of the call in this state.
    public var isFinal: Bool {
        switch self {
        case .disconnectTimeout, .closed, .noAnswer, .rejected, .hungUp, .failed: true
        case .unknown, .new, .pending, .connecting, .checking, .connected, .disconnected, .count: false
        }
    }
}
