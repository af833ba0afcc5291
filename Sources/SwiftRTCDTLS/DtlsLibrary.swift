import CGnuTLS

/// The GnuTLS build that SwiftRTC's DTLS runs on.
public enum DtlsLibrary {
    /// GnuTLS's run-time version, e.g. `GnuTLS 3.7.9`.
    public static var version: String {
        "GnuTLS " + (gnutls_check_version(nil).map { String(cString: $0) } ?? "unknown")
    }
}
