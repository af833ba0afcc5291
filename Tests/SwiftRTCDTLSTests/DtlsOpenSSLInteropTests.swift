import Foundation
import SocketTestSupport
import SwiftRTCDTLS
import SwiftRTCSRTP
import Testing

/// Interop with an independent DTLS stack: OpenSSL's `s_server` and `s_client` over real UDP
/// on 127.0.0.1, each printing its RFC 5764 exporter output, which must equal ours.
@Suite(.enabled(if: OpenSSL.isAvailable), .serialized)
struct DtlsOpenSSLInteropTests {
    /// What both OpenSSL tools are given: DTLS 1.2, an SRTP profile (OpenSSL's name), the
    /// DTLS-SRTP exporter for AES-CM's 60 bytes.
    static func opensslArguments(certificate: URL?, key: URL?, srtp: String = "SRTP_AES128_CM_SHA1_80") -> [String] {
        var arguments = [
            "-dtls1_2", "-use_srtp", srtp,
            "-keymatexport", SrtpKeyingMaterial.exporterLabel, "-keymatexportlen", "60",
        ]
        if let certificate, let key { arguments += ["-cert", certificate.path, "-key", key.path] }
        return arguments
    }

    /// The exporter output as RFC 5764 lays it out, rebuilt from one endpoint's split.
    static func exporterOutput(_ info: DtlsConnectionInfo) -> [UInt8] {
        let keys = info.keyingMaterial
        return info.role == .client
            ? keys.local.key + keys.remote.key + keys.local.salt + keys.remote.salt
            : keys.remote.key + keys.local.key + keys.remote.salt + keys.local.salt
    }

    /// Writes an OpenSSL-made P-256 certificate for OpenSSL's side; returns it loaded too.
    static func opensslCertificate(in directory: URL) async throws -> (DtlsCertificate, URL, URL) {
        let pem = try await OpenSSL.ecdsaCertificate()
        let certificateFile = directory.appendingPathComponent("cert.pem")
        let keyFile = directory.appendingPathComponent("key.pem")
        try pem.certificate.write(to: certificateFile, atomically: true, encoding: .utf8)
        try pem.key.write(to: keyFile, atomically: true, encoding: .utf8)
        return (try DtlsCertificate(certificatePEM: pem.certificate, privateKeyPEM: pem.key), certificateFile, keyFile)
    }

    @Test(arguments: [
        ("SRTP_AES128_CM_SHA1_80", SrtpProfile.aes128CmHmacSha1_80),
        ("SRTP_AES128_CM_SHA1_32", .aes128CmHmacSha1_32),
    ])
    func ourClientAgainstOpenSSLServer(opensslProfile: String, profile: SrtpProfile) async throws {
        let directory = try OpenSSL.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (opensslCertificate, certificateFile, keyFile) = try await Self.opensslCertificate(in: directory)
        let port = try #require(unusedLoopbackPort(), "no unused loopback port")
        let server = try OpenSSLProcess(
            ["s_server", "-accept", "127.0.0.1:\(port)", "-verify", "1"]
                + Self.opensslArguments(certificate: certificateFile, key: keyFile, srtp: opensslProfile)
        )
        defer { server.terminate() }
        #expect(await server.waitFor("ACCEPT"))

        let ours = try DtlsCertificate.generate()
        let socket = try UDPDatagramSocket()
        defer { socket.stop() }
        socket.connect(toPort: port)
        let client = try DtlsTransport(
            configuration: .init(
                role: .client,
                certificate: ours,
                remoteFingerprints: [opensslCertificate.fingerprint]
            ),
            sender: socket
        )
        socket.run(delivering: client)
        client.start()
        let info = try await client.connected()

        #expect(await server.waitFor("Keying material:"), "\(server.output)")
        #expect(server.keyingMaterial == Self.exporterOutput(info))
        #expect(info.keyingMaterial.profile == profile)
        #expect(server.output.contains("SRTP Extension negotiated, profile=\(opensslProfile)"))
        // Our ClientHello puts the RFC 8827 suite and P-256 first; OpenSSL follows the client.
        #expect(server.output.contains("CIPHER is ECDHE-ECDSA-AES128-GCM-SHA256"))
        #expect(info.cipherSuite == "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256")
        #expect(info.group == "SECP256R1")
        // OpenSSL received our certificate (it asked with -verify).
        #expect(server.output.contains(ours.certificatePEM.trimmingCharacters(in: .whitespacesAndNewlines)))

        // s_server prints DONE when its read ends with close_notify.
        #expect(!server.output.contains("DONE"))
        client.close()
        #expect(await server.waitFor("DONE"), "close_notify reached OpenSSL")
    }

    @Test func openSSLClientAgainstOurServer() async throws {
        let directory = try OpenSSL.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (opensslCertificate, certificateFile, keyFile) = try await Self.opensslCertificate(in: directory)

        let ours = try DtlsCertificate.generate()
        let socket = try UDPDatagramSocket()
        defer { socket.stop() }
        let server = try DtlsTransport(
            configuration: .init(
                role: .server,
                certificate: ours,
                remoteFingerprints: [opensslCertificate.fingerprint]
            ),
            sender: socket
        )
        socket.run(delivering: server)
        server.start()

        // -nbio: our server resends its last flight (every 500 ms, ten times) until an
        // authenticated packet comes, and s_client sends none; a blocking s_client takes a resend
        // into SSL_read and then waits in recv for a record that never comes, never seeing its
        // input end (the test hung in CI when closeInput came more than 500 ms after the
        // handshake). Non-blocking, it goes back to select and sees it.
        let client = try OpenSSLProcess(
            ["s_client", "-connect", "127.0.0.1:\(socket.port)", "-nbio"]
                + Self.opensslArguments(certificate: certificateFile, key: keyFile)
        )
        defer { client.terminate() }
        let info = try await server.connected()

        #expect(await client.waitFor("Keying material:"), "\(client.output)")
        #expect(client.keyingMaterial == Self.exporterOutput(info))
        #expect(info.keyingMaterial.profile == .aes128CmHmacSha1_80)
        #expect(info.remoteFingerprint == opensslCertificate.fingerprint)
        // OpenSSL's client prefers AES-256; our server's order picks the RFC 8827 suite and P-256.
        #expect(client.output.contains("Cipher is ECDHE-ECDSA-AES128-GCM-SHA256"))
        #expect(client.output.contains("Server Temp Key: ECDH, prime256v1, 256 bits"))
        #expect(client.output.contains(ours.certificatePEM.trimmingCharacters(in: .whitespacesAndNewlines)))

        // s_client sends close_notify when its input ends; the server closes (within 10 s,
        // or the test fails saying so rather than waiting for ever).
        // Past the server's first resends of its last flight (every 500 ms), which a blocking
        // s_client got stuck on: the run no longer depends on how fast this line is reached.
        try await Task.sleep(for: .seconds(1))
        client.closeInput()
        let states = await withTaskGroup(of: [DtlsState]?.self) { group in
            group.addTask {
                var states: [DtlsState] = []
                for await state in server.stateUpdates { states.append(state) }
                return states
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        #expect(
            states?.last == .closed,
            "the server did not close within 10 s of s_client's input ending: \(client.output.suffix(400))"
        )
    }

    /// WebRTC needs a certificate from both ends: a client that sends none is refused.
    @Test func openSSLClientWithoutCertificateIsRefused() async throws {
        let ours = try DtlsCertificate.generate()
        let socket = try UDPDatagramSocket()
        defer { socket.stop() }
        let anyone = try DtlsCertificate.generate().fingerprint
        let server = try DtlsTransport(
            configuration: .init(role: .server, certificate: ours, remoteFingerprints: [anyone]),
            sender: socket
        )
        socket.run(delivering: server)
        server.start()
        let client = try OpenSSLProcess(
            ["s_client", "-connect", "127.0.0.1:\(socket.port)"] + Self.opensslArguments(certificate: nil, key: nil)
        )
        defer { client.terminate() }
        await #expect(throws: DtlsError.noPeerCertificate) { try await server.connected() }
    }

    /// An OpenSSL client offering only an AEAD SRTP profile, which GnuTLS 3.7.9 cannot
    /// negotiate: the handshake completes without use_srtp, and we fail it with a clear error.
    @Test(.enabled(if: !SrtpProfile.dtlsSupported.contains(.aeadAes128Gcm)))
    func noCommonSrtpProfileFails() async throws {
        let directory = try OpenSSL.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (opensslCertificate, certificateFile, keyFile) = try await Self.opensslCertificate(in: directory)
        let socket = try UDPDatagramSocket()
        defer { socket.stop() }
        let server = try DtlsTransport(
            configuration: .init(
                role: .server,
                certificate: try .generate(),
                remoteFingerprints: [opensslCertificate.fingerprint]
            ),
            sender: socket
        )
        socket.run(delivering: server)
        server.start()
        let client = try OpenSSLProcess(
            ["s_client", "-connect", "127.0.0.1:\(socket.port)"]
                + Self.opensslArguments(certificate: certificateFile, key: keyFile, srtp: "SRTP_AEAD_AES_128_GCM")
        )
        defer { client.terminate() }
        await #expect(throws: DtlsError.noSrtpProfile) { try await server.connected() }
    }
}
