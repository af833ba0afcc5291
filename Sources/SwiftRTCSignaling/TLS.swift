import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOCore
import NIOSSL

/// A TLS server's identity: its certificate chain and private key, read from PEM files.
///
/// ``WHIPEndpoint`` (``WHIPEndpoint/Configuration/tls``) and the signaling server
/// (`SignalingServer.Configuration.tls`) serve `https://` and `wss://` with it (Hummingbird's
/// TLS over swift-nio-ssl: TLS 1.2 and 1.3 only). The files are read, and the key checked against the
/// certificate, when the identity is made, so that a wrong file is an error before the server
/// listens. The key never appears in a description or an error.
public struct TLSIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The PEM file of the certificate chain: the server's certificate first, then any
    /// intermediate CA certificates.
    public let certificateChainFile: String
    /// The PEM file of the private key (unencrypted; PKCS#8, or SEC1/PKCS#1).
    public let privateKeyFile: String
    let certificateChain: [NIOSSLCertificate]
    let privateKey: NIOSSLPrivateKey

    /// Reads the certificate chain and the private key and checks that they belong together.
    /// - Throws: ``TLSSetupError`` naming the file and what is wrong with it.
    public init(certificateChainFile: String, privateKeyFile: String) throws(TLSSetupError) {
        let chainBytes = try TLSSetupError.read(certificateChainFile)
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(chainBytes)
        } catch {
            throw TLSSetupError(file: certificateChainFile, reason: "not a PEM certificate chain (BEGIN CERTIFICATE blocks)")
        }
        guard !chain.isEmpty else {
            throw TLSSetupError(file: certificateChainFile, reason: "no certificate in it (expected BEGIN CERTIFICATE blocks)")
        }
        let keyBytes = try TLSSetupError.read(privateKeyFile)
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem)
        } catch {
            throw TLSSetupError(file: privateKeyFile, reason: "not an unencrypted PEM private key")
        }
        self.certificateChainFile = certificateChainFile
        self.privateKeyFile = privateKeyFile
        certificateChain = chain
        privateKey = key
        // BoringSSL checks the key against the certificate when a context is made with both.
        do {
            _ = try NIOSSLContext(configuration: serverConfiguration)
        } catch {
            throw TLSSetupError(file: privateKeyFile, reason: "this key does not belong to the certificate of \(certificateChainFile)")
        }
    }

    /// The server configuration: this chain and key, TLS 1.2 or 1.3 (NIOSSL's default would
    /// take 1.0), NIOSSL's cipher suites.
    var serverConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: certificateChain.map { .certificate($0) },
                                                                     privateKey: .privateKey(privateKey))
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }

    /// `base` with TLS in front of it.
    package func serverBuilder(_ base: HTTPServerBuilder) throws -> HTTPServerBuilder {
        try .tls(base, tlsConfiguration: serverConfiguration)
    }

    /// The files, never the key.
    public var description: String {
        "TLS certificate \(certificateChainFile), key \(privateKeyFile)"
    }
}

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
            guard !certificates.isEmpty else { throw TLSSetupError(file: file, reason: "no certificate in it (expected BEGIN CERTIFICATE blocks)") }
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
        caCertificateFiles.isEmpty ? "system CA certificates" : "system CA certificates and \(caCertificateFiles.joined(separator: ", "))"
    }
}

/// A certificate, key or CA file that cannot be used, and why.
public struct TLSSetupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// What is wrong with it.
    public var reason: String

    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }

    public var description: String { "\(file): \(reason)" }

    /// The largest PEM file read (a chain of a few certificates is a few KiB).
    static let maxFileBytes = 1 << 20

    static func read(_ file: String) throws(TLSSetupError) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: file) else {
            throw TLSSetupError(file: file, reason: "cannot read it (no such file, or no permission)")
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maxFileBytes + 1)) ?? Data()
        guard data.count <= maxFileBytes else { throw TLSSetupError(file: file, reason: "over \(maxFileBytes) bytes, not a PEM file") }
        return Array(data)
    }
}

/// Sentences for the ways a TLS client connection fails.
enum TLSFailure {
    /// Why the TLS connection to `host` failed, in words; nil when `error` is not a TLS error.
    static func describe(_ error: any Error, host: String) -> String? {
        let text = String(describing: error)
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "TLS: the server's certificate is not for \(host) (none of its names or addresses is \(host))"
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "TLS: the server's certificate could not be verified (CERTIFICATE_VERIFY_FAILED: not issued by a trusted CA, "
                + "expired or not yet valid); a self-signed or private CA must be trusted explicitly"
        }
        if text.contains("WRONG_VERSION_NUMBER") || text.contains("PACKET_LENGTH_TOO_LONG") {
            return "TLS: the server does not speak TLS (a plain http:// or ws:// server?)"
        }
        if let ssl = error as? NIOSSLError {
            switch ssl {
            case let .handshakeFailed(reason): return "TLS handshake with \(host) failed: \(reason)"
            case .uncleanShutdown: return "TLS: the server closed the connection during the TLS exchange"
            default: return "TLS: \(ssl)"
            }
        }
        if error is NIOSSLExtraError || error is BoringSSLError { return "TLS: \(text)" }
        return nil
    }
}
