import CSRTP

/// The libsrtp build that SwiftRTC's SRTP runs on.
public enum SrtpLibrary {
    /// libsrtp's version string, e.g. `libsrtp2 2.5.0`.
    public static var version: String { String(cString: srtp_get_version_string()) }
}
