import Synchronization
import Testing
import SwiftRTCDTLS

/// The end that sends the handshake's last flight (our server) resends it until the peer shows
/// it has the keys, so a lost last flight does not wait for the peer's doubling timer.
@Suite struct DtlsLastFlightTests {
    /// The (content type, epoch) of each record in a datagram (RFC 6347 §4.1 record header).
    static func records(_ datagram: [UInt8]) -> [(type: UInt8, epoch: UInt16)] {
        var found: [(UInt8, UInt16)] = []
        var offset = 0
        while offset + 13 <= datagram.count {
            found.append((datagram[offset], UInt16(datagram[offset + 3]) << 8 | UInt16(datagram[offset + 4])))
            offset += 13 + (Int(datagram[offset + 11]) << 8 | Int(datagram[offset + 12]))
        }
        return found
    }

    /// The server's last flight (ChangeCipherSpec, Finished) is lost three times, and every
    /// retransmission of the client's flight is lost too, so GnuTLS's own recovery (answering
    /// the client's resent flight) cannot help: only the server's resends key the client.
    /// Copies that reach the connected client are dropped as replays. Without confirmation the
    /// resends stop at the maximum.
    @Test func lostLastFlightIsResentWithoutThePeersRetransmission() async throws {
        let changeCipherSpecsFromServer = Mutex(0)
        let clientSentFinished = Mutex(false)
        let link = MemoryDatagramLink(
            dropFromA: { _, bytes in
                clientSentFinished.withLock { sent in
                    if sent { return true }
                    if Self.records(bytes).contains(where: { $0.epoch == 1 }) { sent = true }
                    return false
                }
            },
            dropFromB: { _, bytes in
                let records = Self.records(bytes)
                guard records.contains(where: { $0.type == 20 || $0.epoch == 1 }) else { return false }
                return changeCipherSpecsFromServer.withLock { count in
                    if records.contains(where: { $0.type == 20 }) { count += 1 }
                    return count <= 3
                }
            })
        var (clientConfiguration, serverConfiguration) = try pairConfigurations()
        clientConfiguration.handshakeTimeout = .seconds(8)
        let (client, server) = try link.makePair(client: clientConfiguration, server: serverConfiguration)
        let (c, s) = await handshake(client, server)
        #expect(try c.get().keyingMaterial.local.key == s.get().keyingMaterial.remote.key)
        #expect(server.lastFlightResends >= 3)
        #expect(client.lastFlightResends == 0, "the client's last flight was not the handshake's last")

        // Unconfirmed, the server goes on to the maximum; the client drops the copies.
        while server.lastFlightResends < DtlsTransport.maximumLastFlightResends {
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .milliseconds(700))
        #expect(server.lastFlightResends == DtlsTransport.maximumLastFlightResends)
        #expect(client.state == .connected)
        #expect(server.state == .connected)
        #expect(changeCipherSpecsFromServer.withLock { $0 } == 1 + DtlsTransport.maximumLastFlightResends)
    }

    /// The confirmation (the peer's first authenticated packet) stops the resends at once.
    /// (How many went out before it depends on when this test's task runs again after the
    /// handshake: in a loaded full test run, once, 5 s later.)
    @Test func confirmationStopsTheResends() async throws {
        let (clientConfiguration, serverConfiguration) = try pairConfigurations()
        let link = MemoryDatagramLink()
        let (client, server) = try link.makePair(client: clientConfiguration, server: serverConfiguration)
        let (c, s) = await handshake(client, server)
        _ = try c.get()
        _ = try s.get()
        server.confirmPeerHasKeys()
        let resends = server.lastFlightResends, sent = link.b.counts.sent
        try await Task.sleep(for: .milliseconds(1200))
        #expect(server.lastFlightResends == resends)
        #expect(link.b.counts.sent == sent, "nothing more from the server")
    }
}
