import CGnuTLS
import SwiftRTCSRTP

/// Why a DTLS transport, certificate or fingerprint could not do its job.
///
/// Every case says where it happened: the GnuTLS function and code, the offending SDP value,
/// or both fingerprints of a mismatch.
public enum DtlsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A GnuTLS call failed: which function, GnuTLS's error code and its message.
    case gnutls(function: String, code: Int32, message: String)
    /// The peer's certificate matches none of the remote `a=fingerprint` values (RFC 8122 §5).
    /// The handshake was aborted with a `bad_certificate` alert.
    case fingerprintMismatch(expected: [DtlsFingerprint], actual: DtlsFingerprint)
    /// The peer sent no certificate although WebRTC requires one from both ends (RFC 8827 §6.5).
    case noPeerCertificate
    /// The peer aborted the handshake or the connection with a fatal alert (its name per GnuTLS).
    case alertReceived(alert: String)
    /// The handshake did not complete within the configured time (lost peer or too much loss).
    case handshakeTimedOut(milliseconds: Int)
    /// The peer did not negotiate the `use_srtp` extension (RFC 5764), or chose a profile
    /// that was not offered; DTLS-SRTP has no keys without it.
    case noSrtpProfile
    /// The transport was closed (locally or by the peer's `close_notify`) before it connected.
    case closed
    /// No remote fingerprint was given, or none with a hash function this stack knows.
    case noRemoteFingerprint
    /// An `a=fingerprint` value could not be parsed: the value and what was expected.
    case invalidFingerprint(value: String, expected: String)
    /// A certificate or private key given as PEM could not be used: why.
    case invalidCertificate(reason: String)
    /// The exporter output has the wrong size for the SRTP profile (RFC 5764 §4.2).
    case keyingMaterialLength(profile: SrtpProfile, expected: Int, actual: Int)

    /// A readable account of the error.
    public var description: String {
        switch self {
        case .gnutls(let function, let code, let message):
            "\(function) failed: \(message) (GnuTLS error \(code))"
        case .fingerprintMismatch(let expected, let actual):
            "remote certificate fingerprint \(actual) matches none of the SDP fingerprints "
                + expected.map(\.description).joined(separator: ", ")
        case .noPeerCertificate:
            "the peer sent no certificate"
        case .alertReceived(let alert):
            "the peer sent a fatal alert: \(alert)"
        case .handshakeTimedOut(let milliseconds):
            "DTLS handshake did not complete within \(milliseconds) ms"
        case .noSrtpProfile:
            "the peer negotiated no SRTP protection profile (use_srtp)"
        case .closed:
            "the DTLS transport was closed"
        case .noRemoteFingerprint:
            "no remote a=fingerprint with a supported hash function was given"
        case .invalidFingerprint(let value, let expected):
            "invalid a=fingerprint value \"\(value)\": expected \(expected)"
        case .invalidCertificate(let reason):
            "invalid certificate: \(reason)"
        case .keyingMaterialLength(let profile, let expected, let actual):
            "\(profile) needs \(expected) bytes of keying material, got \(actual)"
        }
    }

    /// The error for a failed GnuTLS call.
    static func gnutls(_ function: String, _ code: Int32) -> DtlsError {
        .gnutls(function: function, code: code, message: String(cString: gnutls_strerror(code)))
    }
}

/// Throws the GnuTLS error of a negative return code.
func check(_ function: String, _ code: Int32) throws(DtlsError) {
    if code < 0 { throw DtlsError.gnutls(function, code) }
}
