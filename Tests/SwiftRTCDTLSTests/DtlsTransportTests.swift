import SwiftRTCDTLS
import SwiftRTCSRTP
import Testing

/// Configurations for two of ours that know each other's certificates.
func pairConfigurations(
    clientCertificate: DtlsCertificate? = nil,
    serverCertificate: DtlsCertificate? = nil
) throws -> (client: DtlsTransport.Configuration, server: DtlsTransport.Configuration) {
    let clientCertificate = try clientCertificate ?? DtlsCertificate.generate(commonName: "client")
    let serverCertificate = try serverCertificate ?? DtlsCertificate.generate(commonName: "server")
    var client = DtlsTransport.Configuration(
        role: .client,
        certificate: clientCertificate,
        remoteFingerprints: [serverCertificate.fingerprint]
    )
    var server = DtlsTransport.Configuration(
        role: .server,
        certificate: serverCertificate,
        remoteFingerprints: [clientCertificate.fingerprint]
    )
    client.initialRetransmissionTimeout = .milliseconds(50)
    server.initialRetransmissionTimeout = .milliseconds(50)
    client.handshakeTimeout = .seconds(20)
    server.handshakeTimeout = .seconds(20)
    return (client, server)
}

/// Both ends' results, each as a Result so one side's failure does not hide the other's.
func handshake(
    _ client: DtlsTransport,
    _ server: DtlsTransport
) async -> (client: Result<DtlsConnectionInfo, DtlsError>, server: Result<DtlsConnectionInfo, DtlsError>) {
    server.start()
    client.start()
    async let c = outcome(client)
    async let s = outcome(server)
    return await (c, s)
}

func outcome(_ transport: DtlsTransport) async -> Result<DtlsConnectionInfo, DtlsError> {
    do throws(DtlsError) {
        return .success(try await transport.connected())
    } catch {
        return .failure(error)
    }
}

@Suite struct DtlsTransportTests {
    @Test(arguments: SrtpProfile.dtlsSupported)
    func handshakeBetweenTwoOfOursAgreesOnProfileAndKeys(profile: SrtpProfile) async throws {
        var (clientConfiguration, serverConfiguration) = try pairConfigurations()
        clientConfiguration.srtpProfiles = [profile]
        serverConfiguration.srtpProfiles = SrtpProfile.dtlsSupported
        let link = MemoryDatagramLink()
        let (client, server) = try link.makePair(client: clientConfiguration, server: serverConfiguration)
        let (c, s) = await handshake(client, server)
        let clientInfo = try c.get()
        let serverInfo = try s.get()

        #expect(clientInfo.keyingMaterial.profile == profile)
        #expect(serverInfo.keyingMaterial.profile == profile)
        #expect(clientInfo.keyingMaterial.local.key == serverInfo.keyingMaterial.remote.key)
        #expect(clientInfo.keyingMaterial.local.salt == serverInfo.keyingMaterial.remote.salt)
        #expect(clientInfo.keyingMaterial.remote.key == serverInfo.keyingMaterial.local.key)
        #expect(clientInfo.keyingMaterial.remote.salt == serverInfo.keyingMaterial.local.salt)
        #expect(clientInfo.keyingMaterial.local.key != clientInfo.keyingMaterial.remote.key)
        #expect(clientInfo.keyingMaterial.local.key.count == profile.keyLength)
        #expect(clientInfo.keyingMaterial.local.salt.count == profile.saltLength)
        #expect(clientInfo.keyingMaterial.local.key.contains { $0 != 0 })
        // RFC 8827 §6.5: the mandatory suite and curve with ECDSA certificates.
        #expect(clientInfo.cipherSuite == "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256")
        #expect(serverInfo.cipherSuite == clientInfo.cipherSuite)
        #expect(clientInfo.group == "SECP256R1")
        #expect(clientInfo.remoteFingerprint == serverConfiguration.certificate.fingerprint)
        #expect(serverInfo.remoteFingerprint == clientConfiguration.certificate.fingerprint)
        #expect(client.state == .connected && server.state == .connected)
        client.close()
        server.close()
    }

    @Test func profileFollowsTheClientsPreference() async throws {
        var (clientConfiguration, serverConfiguration) = try pairConfigurations()
        clientConfiguration.srtpProfiles = [.aes128CmHmacSha1_32, .aes128CmHmacSha1_80]
        serverConfiguration.srtpProfiles = [.aes128CmHmacSha1_80, .aes128CmHmacSha1_32]
        let (client, server) = try MemoryDatagramLink().makePair(
            client: clientConfiguration,
            server: serverConfiguration
        )
        let (c, s) = await handshake(client, server)
        let profiles = try (c.get().keyingMaterial.profile, s.get().keyingMaterial.profile)
        // GnuTLS's server takes the first of the client's list that it supports (RFC 5764 §4.1.1).
        #expect(profiles.0 == .aes128CmHmacSha1_32)
        #expect(profiles.1 == .aes128CmHmacSha1_32)
    }

    /// Transports hold no reference cycles (timer handler, GnuTLS context pointer, stream):
    /// dropped, even connected and never closed, they are freed with their GnuTLS session.
    @Test func droppedTransportsAreFreed() async throws {
        let (clientConfiguration, serverConfiguration) = try pairConfigurations()
        weak var weakClient: DtlsTransport?
        weak var weakServer: DtlsTransport?
        for _ in 0..<20 {
            let (client, server) = try MemoryDatagramLink().makePair(
                client: clientConfiguration,
                server: serverConfiguration
            )
            weakClient = client
            weakServer = server
            let (c, s) = await handshake(client, server)
            _ = try c.get()
            _ = try s.get()
        }
        for _ in 0..<100 where weakClient != nil || weakServer != nil {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(weakClient == nil)
        #expect(weakServer == nil)
    }
}
