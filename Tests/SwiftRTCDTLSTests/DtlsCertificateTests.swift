import Foundation
import Testing

@testable import SwiftRTCDTLS

@Suite struct DtlsCertificateTests {
    @Test func generatedCertificateIsSelfSignedEcdsaP256() throws {
        let certificate = try DtlsCertificate.generate(commonName: "swiftrtc-test")
        #expect(certificate.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(certificate.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(certificate.fingerprint.algorithm == .sha256)
        #expect(certificate.fingerprint.matches(certificateDER: certificate.certificateDER))
        // A fresh key each time.
        #expect(try DtlsCertificate.generate().fingerprint != certificate.fingerprint)
    }

    /// OpenSSL reads our certificate and computes the same fingerprints.
    @Test(.enabled(if: OpenSSL.isAvailable), arguments: [DtlsFingerprint.Algorithm.sha1, .sha256, .sha512])
    func opensslAgreesOnTheFingerprint(algorithm: DtlsFingerprint.Algorithm) async throws {
        let certificate = try DtlsCertificate.generate(commonName: "swiftrtc-test")
        let directory = try OpenSSL.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cert.pem")
        try certificate.certificatePEM.write(to: file, atomically: true, encoding: .utf8)
        let digest = algorithm.rawValue.replacingOccurrences(of: "-", with: "")
        let printed = try await OpenSSL.run(["x509", "-in", file.path, "-noout", "-fingerprint", "-" + digest])
        // "sha256 Fingerprint=AB:CD:..."
        let value = try #require(printed.split(separator: "=").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(algorithm.rawValue + " " + value == certificate.fingerprint(algorithm).sdpValue)
        let text = try await OpenSSL.run(["x509", "-in", file.path, "-noout", "-text"])
        #expect(text.contains("prime256v1"))
        #expect(text.contains("ecdsa-with-SHA256"))
        #expect(text.contains("CN = swiftrtc-test"))
    }

    @Test func loadsAPemPairAndRejectsBadOnes() throws {
        let one = try DtlsCertificate.generate()
        let other = try DtlsCertificate.generate()
        let loaded = try DtlsCertificate(certificatePEM: one.certificatePEM, privateKeyPEM: one.privateKeyPEM)
        #expect(loaded.fingerprint == one.fingerprint)
        #expect(throws: DtlsError.self) {
            try DtlsCertificate(
                certificatePEM: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
                privateKeyPEM: one.privateKeyPEM
            )
        }
        // A key that does not belong to the certificate.
        #expect(throws: DtlsError.self) {
            try DtlsCertificate(certificatePEM: one.certificatePEM, privateKeyPEM: other.privateKeyPEM)
        }
        #expect(throws: DtlsError.self) {
            try DtlsCertificate(certificatePEM: one.certificatePEM, privateKeyPEM: "")
        }
    }
}
