import CGnuTLS
import Testing

/// GnuTLS really loads: a DTLS server session takes the WebRTC SRTP profile, an MTU, and an
/// ECDSA P-256 key is generated and self-signed into a certificate with a SHA-256 fingerprint.
@Test func gnutlsMakesDTLSSessionAndECDSACertificate() throws {
    let version = String(cString: try #require(gnutls_check_version(nil)))
    #expect(version.hasPrefix("3."))
    #expect(gnutls_global_init() == GNUTLS_E_SUCCESS)
    defer { gnutls_global_deinit() }

    var session: gnutls_session_t?
    #expect(gnutls_init(&session, UInt32(GNUTLS_SERVER | GNUTLS_DATAGRAM | GNUTLS_NONBLOCK)) == GNUTLS_E_SUCCESS)
    let dtls = try #require(session)
    defer { gnutls_deinit(dtls) }
    #expect(gnutls_srtp_set_profile_direct(dtls, "SRTP_AES128_CM_HMAC_SHA1_80:SRTP_AES128_CM_HMAC_SHA1_32", nil) == 0)
    gnutls_dtls_set_mtu(dtls, 1200)
    #expect(gnutls_dtls_get_mtu(dtls) > 1000)
    #expect(gnutls_dtls_get_mtu(dtls) <= 1200)

    var key: gnutls_x509_privkey_t?
    #expect(gnutls_x509_privkey_init(&key) == GNUTLS_E_SUCCESS)
    defer { gnutls_x509_privkey_deinit(key) }
    // GNUTLS_CURVE_TO_BITS(curve) is a macro: the top bit marks a curve id.
    let curveBits = UInt32(1) << 31 | GNUTLS_ECC_CURVE_SECP256R1.rawValue
    #expect(gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA, curveBits, 0) == GNUTLS_E_SUCCESS)
    #expect(gnutls_x509_privkey_get_pk_algorithm(key) == Int32(GNUTLS_PK_ECDSA.rawValue))

    var certificate: gnutls_x509_crt_t?
    #expect(gnutls_x509_crt_init(&certificate) == GNUTLS_E_SUCCESS)
    defer { gnutls_x509_crt_deinit(certificate) }
    #expect(gnutls_x509_crt_set_version(certificate, 3) == GNUTLS_E_SUCCESS)
    #expect(gnutls_x509_crt_set_key(certificate, key) == GNUTLS_E_SUCCESS)
    var serial: [UInt8] = [1, 2, 3, 4]
    #expect(gnutls_x509_crt_set_serial(certificate, &serial, serial.count) == GNUTLS_E_SUCCESS)
    #expect(gnutls_x509_crt_set_activation_time(certificate, 1_700_000_000) == GNUTLS_E_SUCCESS)
    #expect(gnutls_x509_crt_set_expiration_time(certificate, 1_900_000_000) == GNUTLS_E_SUCCESS)
    #expect(gnutls_x509_crt_sign2(certificate, certificate, key, GNUTLS_DIG_SHA256, 0) == GNUTLS_E_SUCCESS)

    var fingerprint = [UInt8](repeating: 0, count: 64)
    var size = fingerprint.count
    #expect(gnutls_x509_crt_get_fingerprint(certificate, GNUTLS_DIG_SHA256, &fingerprint, &size) == GNUTLS_E_SUCCESS)
    #expect(size == 32)
    #expect(fingerprint[0..<32].contains { $0 != 0 })
}
