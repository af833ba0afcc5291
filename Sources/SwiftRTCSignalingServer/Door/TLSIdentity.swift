import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOCore
import NIOSSL
import SwiftRTCSignaling

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
            throw TLSSetupError(
                file: certificateChainFile,
                reason: "not a PEM certificate chain (BEGIN CERTIFICATE blocks)"
            )
        }
        guard !chain.isEmpty else {
            throw TLSSetupError(
                file: certificateChainFile,
                reason: "no certificate in it (expected BEGIN CERTIFICATE blocks)"
            )
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
            throw TLSSetupError(
                file: privateKeyFile,
                reason: "this key does not belong to the certificate of \(certificateChainFile)"
            )
        }
    }

    /// The server configuration: this chain and key, TLS 1.2 or 1.3 (NIOSSL's default would
    /// take 1.0), NIOSSL's cipher suites.
    var serverConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificateChain.map { .certificate($0) },
            privateKey: .privateKey(privateKey)
        )
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }

    /// The files, never the key.
    public var description: String {
        "TLS certificate \(certificateChainFile), key \(privateKeyFile)"
    }
}
