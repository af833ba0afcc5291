import CSRTP

/// Why an ``SrtpSession`` could not be created.
public enum SrtpSessionError: Error, Equatable, Sendable {
    /// A master key or salt has the wrong length for the profile.
    case badKeyLength(what: String, expected: Int, got: Int)
    /// The replay window is outside libsrtp's range (64...32767 packets).
    case badReplayWindow(Int)
    /// libsrtp failed, with its `srtp_err_status_t` value.
    case library(Int32)
}
