import CGnuTLS
import Foundation

/// The certificate and private key a ``DtlsTransport`` presents, with its fingerprint for SDP.
///
/// WebRTC endpoints use self-signed certificates; the peer trusts one because its hash is the
/// `a=fingerprint` in the signed-off SDP (RFC 8827 §6.5). ``generate(commonName:)`` makes a
/// fresh ECDSA P-256 certificate, the kind browsers make; ``init(certificatePEM:privateKeyPEM:)``
/// takes any certificate GnuTLS can use (ECDSA or RSA).
public struct DtlsCertificate: Sendable {
    /// The certificate, PEM encoded (`-----BEGIN CERTIFICATE-----`).
    public let certificatePEM: String
    /// The private key, PEM encoded (PKCS #8 `-----BEGIN PRIVATE KEY-----` when generated).
    public let privateKeyPEM: String
    /// The DER encoding of the certificate, the input of every fingerprint.
    public let certificateDER: [UInt8]
    /// The pair loaded into GnuTLS once, shared by every session that presents it.
    let credentials: DtlsCredentials

    /// The SHA-256 fingerprint, the one to put in SDP: `a=fingerprint:` + `fingerprint.sdpValue`.
    public var fingerprint: DtlsFingerprint { fingerprint(.sha256) }

    /// The fingerprint with any supported hash function.
    public func fingerprint(_ algorithm: DtlsFingerprint.Algorithm) -> DtlsFingerprint {
        DtlsFingerprint(algorithm: algorithm, certificateDER: certificateDER)
    }

    /// Loads a certificate and its private key from PEM and checks that they belong together.
    public init(certificatePEM: String, privateKeyPEM: String) throws(DtlsError) {
        var crt: gnutls_x509_crt_t?
        try check("gnutls_x509_crt_init", gnutls_x509_crt_init(&crt))
        defer { gnutls_x509_crt_deinit(crt) }
        let imported = Self.withDatum(certificatePEM) { gnutls_x509_crt_import(crt, $0, GNUTLS_X509_FMT_PEM) }
        guard imported == 0 else {
            throw .invalidCertificate(reason: "certificate PEM: " + String(cString: gnutls_strerror(imported)))
        }
        let certificateDER = try exported("gnutls_x509_crt_export") {
            gnutls_x509_crt_export(crt, GNUTLS_X509_FMT_DER, $0, $1)
        }

        // GnuTLS loads the pair once (which also checks that they match, by signing and
        // verifying); every transport presenting this certificate shares the credentials.
        self.credentials = try DtlsCredentials(certificatePEM: certificatePEM, privateKeyPEM: privateKeyPEM)
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
        self.certificateDER = certificateDER
    }

    /// Generates a self-signed ECDSA P-256 certificate signed with SHA-256, valid from a day
    /// ago for 30 days, with a random serial number, as browsers do for each connection.
    public static func generate(commonName: String = "SwiftRTC") throws(DtlsError) -> DtlsCertificate {
        var key: gnutls_x509_privkey_t?
        try check("gnutls_x509_privkey_init", gnutls_x509_privkey_init(&key))
        defer { gnutls_x509_privkey_deinit(key) }
        // GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), a macro Swift does not import.
        let curveBits = UInt32(1) << 31 | GNUTLS_ECC_CURVE_SECP256R1.rawValue
        try check("gnutls_x509_privkey_generate", gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA, curveBits, 0))

        var crt: gnutls_x509_crt_t?
        try check("gnutls_x509_crt_init", gnutls_x509_crt_init(&crt))
        defer { gnutls_x509_crt_deinit(crt) }
        try check("gnutls_x509_crt_set_version", gnutls_x509_crt_set_version(crt, 3))
        var serial = [UInt8](repeating: 0, count: 8)
        try check("gnutls_rnd", gnutls_rnd(GNUTLS_RND_NONCE, &serial, serial.count))
        serial[0] &= 0x7F  // a positive INTEGER
        try check("gnutls_x509_crt_set_serial", gnutls_x509_crt_set_serial(crt, serial, serial.count))
        let now = time(nil)
        try check("gnutls_x509_crt_set_activation_time", gnutls_x509_crt_set_activation_time(crt, now - 86_400))
        try check("gnutls_x509_crt_set_expiration_time", gnutls_x509_crt_set_expiration_time(crt, now + 30 * 86_400))
        let name = Array(commonName.utf8)
        try check(
            "gnutls_x509_crt_set_dn_by_oid",
            gnutls_x509_crt_set_dn_by_oid(crt, "2.5.4.3", 0, name, UInt32(name.count))
        )
        try check("gnutls_x509_crt_set_key", gnutls_x509_crt_set_key(crt, key))
        try check("gnutls_x509_crt_sign2", gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0))

        let certificatePEM = try exported("gnutls_x509_crt_export") {
            gnutls_x509_crt_export(crt, GNUTLS_X509_FMT_PEM, $0, $1)
        }
        var keyPEM = try exported("gnutls_x509_privkey_export_pkcs8") {
            gnutls_x509_privkey_export_pkcs8(key, GNUTLS_X509_FMT_PEM, nil, GNUTLS_PKCS_PLAIN.rawValue, $0, $1)
        }
        defer { keyPEM.withUnsafeMutableBytes { gnutls_memset($0.baseAddress, 0, $0.count) } }
        return try DtlsCertificate(
            certificatePEM: String(decoding: certificatePEM, as: UTF8.self),
            privateKeyPEM: String(decoding: keyPEM, as: UTF8.self)
        )
    }

    /// Runs `body` with a datum that points at the UTF-8 bytes of `text`.
    static func withDatum<R>(_ text: String, _ body: (UnsafePointer<gnutls_datum_t>) -> R) -> R {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBufferPointer { buffer in
            var datum = gnutls_datum_t(data: buffer.baseAddress, size: UInt32(buffer.count))
            return body(&datum)
        }
    }
}

/// The bytes a GnuTLS export function writes into a caller buffer (`output`, `&size`),
/// asking it for the size first.
private func exported(
    _ function: String,
    _ export: (UnsafeMutableRawPointer?, UnsafeMutablePointer<Int>) -> Int32
) throws(DtlsError) -> [UInt8] {
    var size = 0
    let sizing = export(nil, &size)
    guard sizing == GNUTLS_E_SHORT_MEMORY_BUFFER || sizing == 0 else { throw DtlsError.gnutls(function, sizing) }
    var bytes = [UInt8](repeating: 0, count: size)
    try check(function, bytes.withUnsafeMutableBytes { export($0.baseAddress, &size) })
    return Array(bytes.prefix(size))
}
