import SwiftRTCCore
import SwiftRTCDTLS
import Synchronization
import Testing

/// Collects what a transport sends, for tests that look at the wire.
final class CapturingSender: DatagramSender {
    private let datagrams = Mutex<[[UInt8]]>([])
    var sent: [[UInt8]] { datagrams.withLock { $0 } }
    func send(_ datagram: UnsafeRawBufferPointer) -> Bool {
        datagrams.withLock { $0.append([UInt8](datagram)) }
        return true
    }
}

/// A peer that offers DTLS 1.3: GnuTLS 3.7.9 has no DTLS 1.3, so our server must answer such
/// a ClientHello with DTLS 1.2 rather than fail.
@Suite struct DtlsVersionTests {
    /// Rewrites a DTLS 1.2 ClientHello record the way a DTLS 1.3 client words it (RFC 9147
    /// §5.3): `legacy_version` stays DTLS 1.2, TLS_AES_128_GCM_SHA256 is offered first, and a
    /// `supported_versions` extension lists DTLS 1.3 (0xFEFC) before DTLS 1.2 (0xFEFD).
    static func offeringDtls13(_ record: [UInt8], versions: [UInt8] = [0xFE, 0xFC, 0xFE, 0xFD]) throws -> [UInt8] {
        //  record header (13) | msg_type(1) length(3) message_seq(2) fragment_offset(3) fragment_length(3) | body
        try #require(record.count > 25 && record[0] == 22 && record[13] == 1)
        var body = Array(record[25...])
        var offset = 2 + 32  // client_version, random
        offset += 1 + Int(body[offset])  // session_id
        offset += 1 + Int(body[offset])  // cookie
        let suitesLength = Int(body[offset]) << 8 | Int(body[offset + 1])
        body.replaceSubrange(
            offset..<offset + 2,
            with: [UInt8((suitesLength + 2) >> 8), UInt8((suitesLength + 2) & 0xFF)]
        )
        body.insert(contentsOf: [0x13, 0x01], at: offset + 2)
        offset += 2 + suitesLength + 2
        offset += 1 + Int(body[offset])  // compression_methods
        let extensionsLength = Int(body[offset]) << 8 | Int(body[offset + 1])
        let supportedVersions: [UInt8] =
            [0x00, 0x2B, 0x00, UInt8(versions.count + 1), UInt8(versions.count)] + versions
        let newExtensionsLength = extensionsLength + supportedVersions.count
        body.replaceSubrange(
            offset..<offset + 2,
            with: [UInt8(newExtensionsLength >> 8), UInt8(newExtensionsLength & 0xFF)]
        )
        body.append(contentsOf: supportedVersions)

        let length = body.count
        let length24: [UInt8] = [UInt8(length >> 16), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
        var handshake: [UInt8] = [1] + length24 + Array(record[17...18]) + [0, 0, 0] + length24
        handshake += body
        var out = Array(record[0..<11])
        out += [UInt8(handshake.count >> 8), UInt8(handshake.count & 0xFF)]
        return out + handshake
    }

    /// GnuTLS 3.7.9 does not read `supported_versions` in DTLS: it answers by `legacy_version`,
    /// so a 1.3-and-1.2 offer continues in 1.2, and a 1.3-only peer gets a 1.2 ServerHello,
    /// which it must refuse itself.
    @Test(arguments: [[0xFE, 0xFC, 0xFE, 0xFD], [0xFE, 0xFC]] as [[UInt8]])
    func serverAnswersADtls13OfferWithDtls12(versions: [UInt8]) async throws {
        let configurations = try pairConfigurations()
        let clientConfiguration = configurations.client
        var serverConfiguration = configurations.server
        // The server waits for a client that never answers: its state is checked after the
        // reply, which in a CI run's first 40 s (every short test at once on two cores) came
        // more than the usual 20 s after it started (the server had then timed out).
        serverConfiguration.handshakeTimeout = .seconds(300)
        let clientWire = CapturingSender()
        let client = try DtlsTransport(configuration: clientConfiguration, sender: clientWire)
        client.start()
        while clientWire.sent.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        client.close()
        let hello = try Self.offeringDtls13(clientWire.sent[0], versions: versions)
        #expect(hello.count == clientWire.sent[0].count + 7 + versions.count)

        let serverWire = CapturingSender()
        let server = try DtlsTransport(configuration: serverConfiguration, sender: serverWire)
        server.start()
        hello.withUnsafeBytes { server.receive($0) }
        for _ in 0..<200 where serverWire.sent.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        let flight = try #require(serverWire.sent.first)
        // The first record of the reply: handshake, ServerHello, server_version DTLS 1.2.
        try #require(flight.count > 27)
        #expect(flight[0] == 22)
        #expect(flight[13] == 2, "ServerHello")
        #expect(Array(flight[25...26]) == [0xFE, 0xFD], "server_version DTLS 1.2")
        // random(32), session_id, then the chosen suite: the DTLS 1.2 ECDSA suite, not TLS 1.3's.
        let suiteOffset = 27 + 32 + 1 + Int(flight[27 + 32])
        try #require(flight.count > suiteOffset + 1)
        #expect(
            Array(flight[suiteOffset...suiteOffset + 1]) == [0xC0, 0x2B],
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"
        )
        #expect(server.state == .connecting)
        server.close()
    }

}
