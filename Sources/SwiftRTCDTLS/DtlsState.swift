/// Where a ``DtlsTransport`` is in its life. `connected`, `closed` and `failed` follow
/// `connecting`; `closed` and `failed` are final.
public enum DtlsState: Sendable, Hashable, CustomStringConvertible {
    /// Made, not started.
    case new
    /// Handshaking.
    case connecting
    /// Handshake done, peer certificate matched its fingerprint, SRTP keys exported.
    case connected
    /// Closed locally, or the peer sent `close_notify`.
    case closed
    /// The handshake or the connection failed, and why.
    case failed(DtlsError)

    /// Whether nothing follows this state.
    public var isFinal: Bool {
        switch self {
        case .closed, .failed: true
        case .new, .connecting, .connected: false
        }
    }

    /// A short name with the error when failed.
    public var description: String {
        switch self {
        case .new: "new"
        case .connecting: "connecting"
        case .connected: "connected"
        case .closed: "closed"
        case .failed(let error): "failed(\(error))"
        }
    }
}
