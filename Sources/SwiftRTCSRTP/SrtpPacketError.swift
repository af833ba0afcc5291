import CSRTP

/// Why a packet could not be protected or unprotected. The session counts each failure
/// (see ``SrtpSession/Counters``); the data plane drops the packet.
public enum SrtpPacketError: Error, Equatable, Sendable {
    /// The authentication tag did not verify (tampered, or wrong keys).
    case authenticationFailed
    /// The packet index was seen before or is older than the replay window.
    case replayed
    /// Bad length or malformed packet: shorter than its header and tag, header fields that run
    /// past the end, longer than a datagram, or (protect) no room in the buffer for the tag.
    case malformed
    /// Any other libsrtp failure, with its `srtp_err_status_t` value.
    case failed(Int32)

    init(_ status: srtp_err_status_t) {
        switch status {
        case srtp_err_status_auth_fail: self = .authenticationFailed
        case srtp_err_status_replay_fail, srtp_err_status_replay_old: self = .replayed
        case srtp_err_status_bad_param, srtp_err_status_parse_err: self = .malformed
        default: self = .failed(Int32(status.rawValue))
        }
    }
}
