import Foundation

/// Self-signed TLS certificates for tests of `https://` and `wss://`, made with the `openssl`
/// command (Debian's OpenSSL 3) into a folder of the test's: an ECDSA P-256 key and a
/// certificate valid for one day that is its own CA, so a client trusts it by trusting the
/// certificate file itself.
public struct TestCertificate: Sendable {
    /// The certificate (PEM): the server's chain, and the CA file a client trusts.
    public var certificate: URL
    /// The unencrypted private key (PEM, PKCS#8).
    public var key: URL

    /// Makes a certificate named `name` in `folder` for `subjectAltName` (OpenSSL's syntax:
    /// `DNS:localhost,IP:127.0.0.1`).
    public static func make(
        in folder: URL,
        name: String = "server",
        subjectAltName: String = "DNS:localhost,IP:127.0.0.1"
    ) async throws -> TestCertificate {
        let made = TestCertificate(
            certificate: folder.appendingPathComponent("\(name)-cert.pem"),
            key: folder.appendingPathComponent("\(name)-key.pem")
        )
        let output = try await runToEnd(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj",
                "/CN=\(name)",
                "-addext", "subjectAltName=\(subjectAltName)", "-days", "1",
                "-keyout", made.key.path, "-out", made.certificate.path,
            ]
        )
        guard output.status == 0 else {
            throw Failure(description: "openssl req failed (\(output.status)): \(output.stderr)")
        }
        return made
    }

    struct Failure: Error, CustomStringConvertible { var description: String }
}
