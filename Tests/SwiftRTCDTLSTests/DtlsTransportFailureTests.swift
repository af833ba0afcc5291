import SwiftRTCDTLS
import SwiftRTCSRTP
import Synchronization
import Testing

/// Fingerprint checks, foreign certificates, loss, close_notify, timeouts and junk input.
@Suite struct DtlsTransportFailureTests {
    @Test(arguments: [DtlsRole.client, .server])
    func fingerprintMismatchFailsWithClearError(checkingSide: DtlsRole) async throws {
        var (clientConfiguration, serverConfiguration) = try pairConfigurations()
        let impostor = try DtlsCertificate.generate(commonName: "impostor")
        if checkingSide == .client {
            clientConfiguration.remoteFingerprints = [impostor.fingerprint]
        } else {
            serverConfiguration.remoteFingerprints = [impostor.fingerprint]
        }
        let (client, server) = try MemoryDatagramLink().makePair(
            client: clientConfiguration,
            server: serverConfiguration
        )
        let (c, s) = await handshake(client, server)
        let (checker, other) = checkingSide == .client ? (c, s) : (s, c)
        let actual = (checkingSide == .client ? serverConfiguration : clientConfiguration).certificate.fingerprint
        #expect(throws: DtlsError.fingerprintMismatch(expected: [impostor.fingerprint], actual: actual)) {
            try checker.get()
        }
        // The checking side aborts with a bad_certificate alert, so the other end fails at once
        // rather than at its handshake timeout.
        #expect(throws: DtlsError.alertReceived(alert: "Certificate is bad")) { try other.get() }
        #expect(client.state != .connected && server.state != .connected)
    }

    /// RFC 8122 §5: the strongest hash function among the remote fingerprints decides.
    @Test func onlyTheStrongestRemoteHashFunctionCounts() async throws {
        var (clientConfiguration, serverConfiguration) = try pairConfigurations()
        let serverCertificate = serverConfiguration.certificate
        let wrongSha1 = try DtlsFingerprint(algorithm: .sha1, digest: Array(repeating: 0xAA, count: 20))
        clientConfiguration.remoteFingerprints = [wrongSha1, serverCertificate.fingerprint(.sha384)]
        var link = MemoryDatagramLink()
        var (client, server) = try link.makePair(client: clientConfiguration, server: serverConfiguration)
        var (c, s) = await handshake(client, server)
        #expect(try c.get().remoteFingerprint == serverCertificate.fingerprint)
        _ = try s.get()

        let wrongSha512 = try DtlsFingerprint(algorithm: .sha512, digest: Array(repeating: 0xBB, count: 64))
        clientConfiguration.remoteFingerprints = [serverCertificate.fingerprint, wrongSha512]
        link = MemoryDatagramLink()
        (client, server) = try link.makePair(client: clientConfiguration, server: serverConfiguration)
        (c, s) = await handshake(client, server)
        #expect(
            throws: DtlsError.fingerprintMismatch(
                expected: [wrongSha512],
                actual: serverCertificate.fingerprint(.sha512)
            )
        ) { try c.get() }
    }

    /// A peer with an RSA certificate (made by OpenSSL) is accepted in either role, over ECDHE_RSA.
    @Test(.enabled(if: OpenSSL.isAvailable), arguments: [DtlsRole.client, .server])
    func rsaCertificatePeerIsAccepted(rsaSide: DtlsRole) async throws {
        let pem = try await OpenSSL.rsaCertificate()
        let rsa = try DtlsCertificate(certificatePEM: pem.certificate, privateKeyPEM: pem.key)
        let (clientConfiguration, serverConfiguration) =
            try rsaSide == .client
            ? pairConfigurations(clientCertificate: rsa) : pairConfigurations(serverCertificate: rsa)
        let (client, server) = try MemoryDatagramLink().makePair(
            client: clientConfiguration,
            server: serverConfiguration
        )
        let (c, s) = await handshake(client, server)
        let clientInfo = try c.get()
        let serverInfo = try s.get()
        #expect(clientInfo.keyingMaterial.local.key == serverInfo.keyingMaterial.remote.key)
        if rsaSide == .server {
            #expect(clientInfo.cipherSuite == "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256")
            #expect(clientInfo.remoteFingerprint == rsa.fingerprint)
        } else {
            // The suite follows the server's (ECDSA) certificate; the client signs with RSA.
            #expect(clientInfo.cipherSuite == "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256")
            #expect(serverInfo.remoteFingerprint == rsa.fingerprint)
        }
    }

    /// 30% of datagrams dropped in both directions (fixed pattern): retransmission still
    /// completes the handshake, and the keys agree.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func handshakeSurvivesLoss(seed: UInt64) async throws {
        let link = MemoryDatagramLink(lossPercent: 30, seed: seed)
        let (clientConfiguration, serverConfiguration) = try pairConfigurations()
        let (client, server) = try link.makePair(client: clientConfiguration, server: serverConfiguration)
        let (c, s) = await handshake(client, server)
        let clientInfo = try c.get()
        let serverInfo = try s.get()
        #expect(clientInfo.keyingMaterial.local.key == serverInfo.keyingMaterial.remote.key)
        #expect(clientInfo.keyingMaterial.remote.salt == serverInfo.keyingMaterial.local.salt)
        let dropped = link.a.counts.dropped + link.b.counts.dropped
        #expect(dropped > 0, "the pattern must actually drop something")
    }

    /// The server's final flight (ChangeCipherSpec + Finished) is lost once: the server has
    /// already completed, so it must answer the client's retransmitted flight after the
    /// handshake by resending its own.
    @Test func lostFinalServerFlightIsResent() async throws {
        let firstChangeCipherSpec = Mutex(true)
        let link = MemoryDatagramLink(
            dropFromA: { _, _ in false },
            dropFromB: { _, bytes in
                bytes.first == 20
                    && firstChangeCipherSpec.withLock { first in
                        defer { first = false }
                        return first
                    }
            }
        )
        let (clientConfiguration, serverConfiguration) = try pairConfigurations()
        let (client, server) = try link.makePair(client: clientConfiguration, server: serverConfiguration)
        let (c, s) = await handshake(client, server)
        #expect(try c.get().keyingMaterial.local.key == s.get().keyingMaterial.remote.key)
        #expect(link.b.counts.dropped == 1)
    }

    @Test func closeNotifyReachesThePeer() async throws {
        let (clientConfiguration, serverConfiguration) = try pairConfigurations()
        let (client, server) = try MemoryDatagramLink().makePair(
            client: clientConfiguration,
            server: serverConfiguration
        )
        let (c, s) = await handshake(client, server)
        _ = try c.get()
        _ = try s.get()
        client.close()
        #expect(client.state == .closed)
        var seen: [DtlsState] = []
        for await state in server.stateUpdates { seen.append(state) }  // ends after a final state
        #expect(seen == [.connecting, .connected, .closed])
        await #expect(throws: DtlsError.closed) { try await server.connected() }
    }

    /// The ClientHello goes at 0, 200 and 600 ms (the retransmission timeout starts at 200 ms
    /// and doubles). The handshake times out at 1 s, well after the third send: at 600 ms, the
    /// timeout and the third send were due at once, and under load the timeout won.
    @Test func silentPeerTimesOut() async throws {
        var (clientConfiguration, _) = try pairConfigurations()
        clientConfiguration.handshakeTimeout = .milliseconds(1000)
        let link = MemoryDatagramLink(lossPercent: 100)
        let client = try DtlsTransport(configuration: clientConfiguration, sender: link.a)
        client.start()
        await #expect(throws: DtlsError.handshakeTimedOut(milliseconds: 1000)) { try await client.connected() }
        #expect(link.a.counts.sent >= 3, "ClientHello and its retransmissions")
    }

    /// Junk in the DTLS range, truncated records and empty datagrams are dropped; the
    /// handshake still completes.
    @Test func junkDatagramsAreIgnored() async throws {
        let (clientConfiguration, serverConfiguration) = try pairConfigurations()
        let (client, server) = try MemoryDatagramLink().makePair(
            client: clientConfiguration,
            server: serverConfiguration
        )
        let junk: [[UInt8]] = [
            [], [22], [22, 0xFE, 0xFD], [22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF],
            [21, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 2, 40],  // alert record shorter than its length
            [22, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 0, 0, 0, 4, 1, 2, 3, 4],  // epoch 1 before any keys
            Array(repeating: 0x17, count: 1500), (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37) },
        ]
        server.start()
        for datagram in junk { datagram.withUnsafeBytes { server.receive($0) } }
        let (c, s) = await handshake(client, server)
        #expect(try c.get().keyingMaterial.local.key == s.get().keyingMaterial.remote.key)
    }
}
