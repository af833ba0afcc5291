import Foundation
import NIOCore
import NIOSSL

/// Whom the TLS clients (``WHIPClient``, ``WebSocketSignalingChannel``) trust: the system's CA
/// certificates (Debian's `/etc/ssl/certs`), plus the CA certificates of ``caCertificateFiles``
/// (a self-signed deployment, tests). Either way the server's certificate must chain to one of
/// them, be valid now, and name the host of the URL (its DNS name, or its IP address as an IP
/// address entry); nothing turns verification off.
public struct TLSTrust: Sendable, Hashable, CustomStringConvertible {
    /// The PEM files of the CA certificates trusted besides the system's.
    public private(set) var caCertificateFiles: [String] = []
    private var additionalRoots: [NIOSSLCertificate] = []

    /// The system's CA certificates only.
    public static let system = TLSTrust()

    /// The system's CA certificates only.
    public init() {}

    /// The system's CA certificates and those of `caCertificateFile` (PEM, one or more).
    /// - Throws: ``TLSSetupError`` when the file cannot be read or holds no certificate.
    public init(caCertificateFile: String) throws(TLSSetupError) {
        try self.init(caCertificateFiles: [caCertificateFile])
    }

    /// The system's CA certificates and those of each of `caCertificateFiles`.
    public init(caCertificateFiles: [String]) throws(TLSSetupError) {
        for file in caCertificateFiles {
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMBytes(try TLSSetupError.read(file))
            } catch let error as TLSSetupError {
                throw error
            } catch {
                throw TLSSetupError(file: file, reason: "not a PEM CA certificate (BEGIN CERTIFICATE blocks)")
            }
            guard !certificates.isEmpty else {
                throw TLSSetupError(file: file, reason: "no certificate in it (expected BEGIN CERTIFICATE blocks)")
            }
            additionalRoots += certificates
        }
        self.caCertificateFiles = caCertificateFiles
    }

    /// The client configuration: full verification (chain and host name) against the system's
    /// roots plus ours, TLS 1.2 or 1.3.
    package var clientConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.certificateVerification = .fullVerification
        configuration.trustRoots = .default
        if !additionalRoots.isEmpty { configuration.additionalTrustRoots = [.certificates(additionalRoots)] }
        return configuration
    }

    public var description: String {
        caCertificateFiles.isEmpty
            ? "system CA certificates" : "system CA certificates and \(caCertificateFiles.joined(separator: ", "))"
    }
}
