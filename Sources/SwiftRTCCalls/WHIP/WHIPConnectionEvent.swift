/// What a ``WHIPConnection`` did on its own after the offer: trickling ended, ICE restarted.
public enum WHIPConnectionEvent: Sendable, Hashable {
    /// Trickling the candidates gathered after the offer ended: `candidates` were sent;
    /// `stopped` says why it ended early (the session takes no trickle, a `PATCH` failed).
    case trickled(candidates: Int, stopped: String?)
    /// ICE was restarted over `PATCH` (RFC 9725 §4.3.2): new credentials on both sides.
    case iceRestarted
    /// An ICE restart failed (the `PATCH`, or applying its answer); another follows after
    /// ``WHIPConnection/Options/iceRestartDelay`` while the connection is down.
    case iceRestartFailed(String)
}
