import CGnuTLS
import SwiftRTCCore

extension DtlsTransport {
    /// GnuTLS priorities: DTLS 1.2 only; ECDHE with ECDSA or RSA certificates; P-256 first
    /// and TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 first, the suite and curve RFC 8827 §6.5
    /// makes mandatory, pinned here instead of left to GnuTLS's NORMAL order (a GnuTLS WebRTC
    /// client is known to fail against browsers until it pins them); then the other suites
    /// browsers offer. `%SERVER_PRECEDENCE` makes our server choose by this order too, so it
    /// lands on AES-128-GCM and P-256 even when the client prefers AES-256 or X25519.
    static let priorities = [
        "NONE", "+VERS-DTLS1.2", "+CTYPE-X509", "+COMP-NULL", "+SIGN-ALL",
        "+CURVE-SECP256R1", "+CURVE-X25519", "+CURVE-SECP384R1",
        "+ECDHE-ECDSA", "+ECDHE-RSA",
        "+AES-128-GCM", "+AES-256-GCM", "+CHACHA20-POLY1305", "+AES-128-CBC", "+AES-256-CBC",
        "+AEAD", "+SHA1", "+SHA256", "%SERVER_PRECEDENCE",
    ].joined(separator: ":")

    /// Sets up the GnuTLS session with the certificate's shared credentials: role, priorities, certificate request,
    /// use_srtp profiles, MTU, timers and the transport callbacks.
    func makeSession() throws(DtlsError) {
        let end = configuration.role == .client ? GNUTLS_CLIENT.rawValue : GNUTLS_SERVER.rawValue
        let flags = end | GNUTLS_DATAGRAM.rawValue | GNUTLS_NONBLOCK.rawValue | GNUTLS_NO_TICKETS.rawValue
        try check("gnutls_init", gnutls_init(&session, flags))
        try check("gnutls_priority_set_direct", gnutls_priority_set_direct(session, Self.priorities, nil))
        try check(
            "gnutls_credentials_set",
            gnutls_credentials_set(
                session,
                GNUTLS_CRD_CERTIFICATE,
                UnsafeMutableRawPointer(configuration.certificate.credentials.pointer)
            )
        )
        if configuration.role == .server {
            // WebRTC authenticates both ends by certificate fingerprint.
            gnutls_certificate_server_set_request(session, GNUTLS_CERT_REQUIRE)
        }
        guard !configuration.srtpProfiles.isEmpty else { throw .noSrtpProfile }
        let profiles = configuration.srtpProfiles.map(\.name).joined(separator: ":")
        try check("gnutls_srtp_set_profile_direct", gnutls_srtp_set_profile_direct(session, profiles, nil))
        gnutls_dtls_set_mtu(session, UInt32(clamping: configuration.mtu))
        gnutls_dtls_set_timeouts(
            session,
            Self.milliseconds(configuration.initialRetransmissionTimeout),
            Self.milliseconds(configuration.handshakeTimeout)
        )
        installCallbacks()
    }

    static func milliseconds(_ duration: Duration) -> UInt32 {
        UInt32(clamping: duration.milliseconds)
    }
}
