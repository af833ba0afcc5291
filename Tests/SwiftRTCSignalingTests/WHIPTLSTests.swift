import Foundation
import Hummingbird
import NIOSSL
import TestScheduling
import Testing

@testable import SwiftRTCSignaling
@testable import SwiftRTCSignalingServer

/// The WHIP endpoint over `https://` and the client that verifies it: real TLS on 127.0.0.1
/// with certificates `openssl` makes for the test (issue 17).
@Suite struct WHIPTLSTests {
    static let folder: URL = {
        (try? ScratchFolder.make("whip-tls")) ?? FileManager.default.temporaryDirectory
    }()

    /// A certificate for localhost and 127.0.0.1, and the endpoint's identity from it.
    static func identity(
        _ name: String,
        subjectAltName: String = "DNS:localhost,IP:127.0.0.1"
    ) async throws -> (TestCertificate, TLSIdentity) {
        let certificate = try await TestCertificate.make(
            in: folder,
            name: name + "-\(UUID().uuidString.prefix(6))",
            subjectAltName: subjectAltName
        )
        return (
            certificate,
            try TLSIdentity(certificateChainFile: certificate.certificate.path, privateKeyFile: certificate.key.path)
        )
    }

    @Test func aClientTrustingTheCAPublishesOverHTTPSByAddressAndByName() async throws {
        let (certificate, identity) = try await Self.identity("trusted")
        let endpoint = WHIPEndpoint(configuration: .init(tls: identity), answerer: WHIPTestSDP.answerer)
        #expect(
            endpoint.configuration.description.hasPrefix("WHIP endpoint https://127.0.0.1:0/whip (TLS certificate ")
        )
        try await withEndpoint(endpoint) { url in
            #expect(url.scheme == "https")
            let trust = try TLSTrust(caCertificateFile: certificate.certificate.path)
            let client = WHIPClient(endpoint: url, timeout: .seconds(10), trust: trust)
            let session = try await client.publish(offer: WHIPTestSDP.offer)
            #expect(session.location.absoluteString.hasPrefix("https://127.0.0.1:\(url.port!)/whip/"))
            #expect(session.answer.hasPrefix("v=0"))
            try await client.end(session)
            // By name: the name goes in SNI and must be one of the certificate's DNS names.
            let byName = WHIPClient(endpoint: URL(string: "https://localhost:\(url.port!)/whip")!, trust: trust)
            try await byName.end(try await byName.publish(offer: WHIPTestSDP.offer))
            #expect(endpoint.stats.sessionsCreated == 2)
            #expect(endpoint.stats.endedByClient == 2)
        }
    }

    /// Both servers (they share `TLSIdentity`) speak TLS 1.2 and 1.3 only: NIOSSL's default
    /// minimum would take 1.0.
    @Test func theServersTakeTLS12AtLeast() async throws {
        let (_, identity) = try await Self.identity("minimum")
        #expect(identity.serverConfiguration.minimumTLSVersion == .tlsv12)
    }

    /// An https endpoint whose session `Location` is http: refused, so that the `DELETE` (and
    /// its bearer token) never goes in the clear.
    @Test func anHTTPSessionURLFromAnHTTPSEndpointIsRefused() async throws {
        let (certificate, identity) = try await Self.identity("downgrade")
        let router = Router()
        router.post("whip") { _, _ in
            Response(
                status: .created,
                headers: [.location: "http://127.0.0.1:9/s/1", .contentType: "application/sdp"],
                body: .init(byteBuffer: ByteBuffer(string: "v=0\r\n"))
            )
        }
        try await withServer(router, tls: identity) { url in
            let client = WHIPClient(
                endpoint: url,
                bearerToken: "secret-token-0123456789",
                trust: try TLSTrust(caCertificateFile: certificate.certificate.path)
            )
            await #expect(throws: WHIPError.insecureLocation(url: url, location: "http://127.0.0.1:9/s/1")) {
                try await client.publish(offer: "v=0\r\n")
            }
        }
    }

    @Test func aClientThatDoesNotTrustTheCertificateFailsClearlyAndSendsNothing() async throws {
        let (_, identity) = try await Self.identity("untrusted")
        let (stranger, _) = try await Self.identity("stranger")
        let endpoint = WHIPEndpoint(configuration: .init(tls: identity), answerer: WHIPTestSDP.answerer)
        try await withEndpoint(endpoint) { url in
            // The system's CA certificates only, then another self-signed certificate.
            for trust in [TLSTrust.system, try TLSTrust(caCertificateFile: stranger.certificate.path)] {
                do {
                    _ = try await WHIPClient(endpoint: url, trust: trust).publish(offer: WHIPTestSDP.offer)
                    Issue.record("published to a server whose certificate is not trusted (\(trust))")
                } catch {
                    guard let whip = error as? WHIPError, case let .tls(method, failedURL, message) = whip else {
                        throw error
                    }
                    #expect(method == "POST")
                    #expect(failedURL == url)
                    #expect(
                        message.contains("the server's certificate could not be verified (CERTIFICATE_VERIFY_FAILED"),
                        "\(message)"
                    )
                    #expect(whip.description.hasPrefix("WHIP POST \(url.absoluteString): TLS: "), "\(whip)")
                }
            }
            #expect(endpoint.stats.sessionsCreated == 0)
            #expect(endpoint.stats.badRequests == 0 && endpoint.stats.unauthorized == 0)
        }
    }

    @Test func aTrustedCertificateForAnotherHostIsRefused() async throws {
        let (certificate, identity) = try await Self.identity("elsewhere", subjectAltName: "DNS:whip.example.invalid")
        let endpoint = WHIPEndpoint(configuration: .init(tls: identity), answerer: WHIPTestSDP.answerer)
        try await withEndpoint(endpoint) { url in
            let trust = try TLSTrust(caCertificateFile: certificate.certificate.path)
            for target in [url, URL(string: "https://localhost:\(url.port!)/whip")!] {
                await #expect {
                    _ = try await WHIPClient(endpoint: target, trust: trust).publish(offer: WHIPTestSDP.offer)
                } throws: { error in
                    guard case let .tls(_, _, message) = error as? WHIPError else { return false }
                    return message
                        == "TLS: the server's certificate is not for \(target.host!) (none of its names or addresses is \(target.host!))"
                }
            }
            #expect(endpoint.stats.sessionsCreated == 0)
        }
    }

    @Test func plainAndTLSMixedUpAreErrors() async throws {
        let (certificate, identity) = try await Self.identity("mixed")
        let trust = try TLSTrust(caCertificateFile: certificate.certificate.path)
        // https:// to a plain HTTP endpoint: it answers the ClientHello with an HTTP error at
        // once. The client's deadline runs from before it connects, and in the first minute of
        // the test run every suite starts at once on the cooperative pool (two threads here):
        // a 5 s deadline there was seen to pass before the reply was read. The deadline only
        // bounds the wait; the assertion is the error.
        let plain = WHIPEndpoint(configuration: .init(), answerer: WHIPTestSDP.answerer)
        try await withEndpoint(plain) { url in
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
            components.scheme = "https"
            await #expect {
                _ = try await WHIPClient(endpoint: components.url!, timeout: .seconds(30), trust: trust).publish(
                    offer: WHIPTestSDP.offer
                )
            } throws: { error in
                guard case let .tls(_, _, message) = error as? WHIPError else { return false }
                return message.contains("does not speak TLS")
            }
        }
        // http:// to the TLS endpoint: no answer it could take.
        let secure = WHIPEndpoint(configuration: .init(tls: identity), answerer: WHIPTestSDP.answerer)
        try await withEndpoint(secure) { url in
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
            components.scheme = "http"
            await #expect(throws: WHIPError.self) {
                _ = try await WHIPClient(endpoint: components.url!, timeout: .seconds(5)).publish(
                    offer: WHIPTestSDP.offer
                )
            }
            #expect(secure.stats.sessionsCreated == 0)
        }
    }

    @Test func unusableFilesAreClearErrors() async throws {
        let (certificate, _) = try await Self.identity("files")
        let (other, _) = try await Self.identity("other")
        let garbage = Self.folder.appendingPathComponent("garbage.pem")
        try Data("not a certificate\n".utf8).write(to: garbage)
        let missing = Self.folder.appendingPathComponent("missing.pem").path

        #expect(throws: TLSSetupError(file: missing, reason: "cannot read it (no such file, or no permission)")) {
            try TLSIdentity(certificateChainFile: missing, privateKeyFile: certificate.key.path)
        }
        #expect(
            throws: TLSSetupError(file: garbage.path, reason: "not a PEM certificate chain (BEGIN CERTIFICATE blocks)")
        ) {
            try TLSIdentity(certificateChainFile: garbage.path, privateKeyFile: certificate.key.path)
        }
        #expect(throws: TLSSetupError(file: certificate.certificate.path, reason: "not an unencrypted PEM private key"))
        {
            try TLSIdentity(
                certificateChainFile: certificate.certificate.path,
                privateKeyFile: certificate.certificate.path
            )
        }
        #expect(
            throws: TLSSetupError(
                file: other.key.path,
                reason: "this key does not belong to the certificate of \(certificate.certificate.path)"
            )
        ) {
            try TLSIdentity(certificateChainFile: certificate.certificate.path, privateKeyFile: other.key.path)
        }
        #expect(
            throws: TLSSetupError(file: garbage.path, reason: "not a PEM CA certificate (BEGIN CERTIFICATE blocks)")
        ) {
            try TLSTrust(caCertificateFile: garbage.path)
        }
        // The description names files, never the key.
        let identity = try TLSIdentity(
            certificateChainFile: certificate.certificate.path,
            privateKeyFile: certificate.key.path
        )
        let key = try String(contentsOf: certificate.key, encoding: .utf8)
        let keyBody = key.split(separator: "\n")[1]
        #expect(!"\(identity)".contains(keyBody))
        #expect("\(identity)" == "TLS certificate \(certificate.certificate.path), key \(certificate.key.path)")
    }
}
