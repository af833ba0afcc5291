import CGnuTLS

/// A certificate and its private key loaded into GnuTLS (`gnutls_certificate_credentials_t`),
/// made once per ``DtlsCertificate`` and shared by every session presenting it.
///
/// Loading parses both PEMs and checks that the key matches the certificate by signing and
/// verifying: done per session, that was an ECDSA signature and verification in every
/// connection's set-up. GnuTLS allows one set of credentials in many sessions at once, on any
/// threads, as long as nobody changes it; nothing does after `init`. It is freed when the last
/// certificate value and transport holding it are gone (each transport holds its
/// configuration's certificate, so its session never outlives the credentials).
final class DtlsCredentials: @unchecked Sendable {
    let pointer: gnutls_certificate_credentials_t

    init(certificatePEM: String, privateKeyPEM: String) throws(DtlsError) {
        var credentials: gnutls_certificate_credentials_t?
        try check("gnutls_certificate_allocate_credentials", gnutls_certificate_allocate_credentials(&credentials))
        guard let credentials else {
            throw DtlsError.gnutls("gnutls_certificate_allocate_credentials", GNUTLS_E_MEMORY_ERROR)
        }
        let loaded = DtlsCertificate.withDatum(certificatePEM) { cert in
            DtlsCertificate.withDatum(privateKeyPEM) { key in
                gnutls_certificate_set_x509_key_mem2(credentials, cert, key, GNUTLS_X509_FMT_PEM, nil, 0)
            }
        }
        guard loaded >= 0 else {
            gnutls_certificate_free_credentials(credentials)
            throw .invalidCertificate(reason: "private key PEM: " + String(cString: gnutls_strerror(loaded)))
        }
        pointer = credentials
    }

    deinit {
        gnutls_certificate_free_credentials(pointer)
    }
}
